/**
 * The chat store (src/ports/chat-store.port.ts) on both engines, against holds the chat ledger wrote:
 * the heartbeat, the hold left to the chat_settle job, what the job finds stale, and the compare-and-set
 * that abandons a request held before migration 009 (a second move from the wrong state changes nothing).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { pino } from 'pino';
import { createChatLedger } from '../../src/adapters/db/ledger/chat-ledger-factory.ts';
import { kyselyChatStore as store } from '../../src/adapters/db/stores/chat-store.ts';
import { kyselyUnitOfWork } from '../../src/adapters/db/stores/kysely-unit-of-work.ts';
import { newId } from '../../src/domain/ids.ts';
import type { ChatLedger } from '../../src/ports/ledger.port.ts';
import type { UnitOfWork } from '../../src/ports/unit-of-work.port.ts';
import { createUser } from '../../src/adapters/db/stores/account-store.ts';
import { chatOutcome, heldRequest } from '../support/chat-ledger-fixtures.ts';
import { describeEachDatabase } from '../support/databases.ts';

const quiet = pino({ level: 'silent' });

describeEachDatabase('chat store', (t) => {
  let ledger: ChatLedger;
  let uow: UnitOfWork;
  before(() => {
    ledger = createChatLedger(t.handle, quiet);
    uow = kyselyUnitOfWork(t.handle.db);
  });
  after(() => ledger.close());

  const lastSeen = async (id: string) => Number((await t.handle.db.selectFrom('chat_holds').select('last_seen_at').where('id', '=', id).executeTakeFirstOrThrow()).last_seen_at);
  const setLastSeen = (id: string, at: number) => t.handle.db.updateTable('chat_holds').set({ last_seen_at: at }).where('id', '=', id).execute();

  /** A request held the way migration 009 stopped holding: an `in_progress` chat_requests row. */
  const oldRequest = async (userId: string, lastSeenAt: number, status = 'in_progress') => {
    const id = newId('chat');
    await t.handle.db
      .insertInto('chat_requests')
      .values({ id, user_id: userId, api_key_id: null, model: 'gpt-5.4-mini', protocol: 'openai', provider: null, upstream_model: null, stream: 0, status, input_tokens: 0, output_tokens: 0, cached_tokens: 0, cache_creation_tokens: 0, usage_estimated: 0, hold_micro: 7_000, cost_micro: 0, stop_reason: null, latency_ms: null, first_byte_ms: null, error_code: null, error_message: null, created_at: lastSeenAt - 10, finished_at: null, last_seen_at: lastSeenAt })
      .execute();
    return id;
  };

  test('the heartbeat marks running holds alive, but not one left to the chat_settle job', async () => {
    const user = await createUser(t.handle.db, { balanceMicro: 100_000 });
    const running = heldRequest(user.id, 10_000);
    const left = heldRequest(user.id, 10_000);
    await ledger.hold(running);
    await ledger.hold(left);
    await setLastSeen(running.id, 5);
    await store.deferSettlement(uow.direct, left.id, { chargeMicro: 4_000, status: 'cut' });
    await store.markHoldsAlive(uow.direct, [running.id, left.id], 123_456);
    assert.equal(await lastSeen(running.id), 123_456);
    assert.equal(await lastSeen(left.id), 0, 'a deferred hold stays stale');
    const deferred = await store.findHold(uow.direct, left.id);
    assert.deepEqual([Number(deferred?.settle_micro), deferred?.settle_status], [4_000, 'cut']);
    await store.markHoldsAlive(uow.direct, [], 1);
  });

  test('the stale holds are those not marked since the bound, oldest first, at most the limit', async () => {
    const user = await createUser(t.handle.db, { balanceMicro: 100_000 });
    const ids: string[] = [];
    for (const at of [300, 100, 200, 900_000]) {
      const request = heldRequest(user.id, 1_000);
      await ledger.hold(request);
      await setLastSeen(request.id, at);
      ids.push(request.id);
    }
    const mine = (holds: { id: string }[]) => holds.map((h) => h.id).filter((id) => ids.includes(id));
    const stale = await store.findStaleHolds(uow.direct, 1_000, 1_000);
    assert.deepEqual(mine(stale), [ids[1], ids[2], ids[0]], 'oldest first; the hold seen at 900000 is not stale');
    const firstTwo = await store.findStaleHolds(uow.direct, 250, 1_000);
    assert.deepEqual(mine(firstTwo), [ids[1], ids[2]]);
    const limited = await store.findStaleHolds(uow.direct, 1_000, 1);
    assert.equal(limited.length, 1);
    const hold = stale.find((h) => h.id === ids[1]);
    assert.deepEqual([hold?.user_id, Number(hold?.hold_micro), hold?.settle_micro ?? null], [user.id, 1_000, null]);
  });

  test('a hold is found while it runs and its charge once it settled', async () => {
    const user = await createUser(t.handle.db, { balanceMicro: 100_000 });
    const request = heldRequest(user.id, 20_000);
    assert.equal(await store.findHold(uow.direct, request.id), undefined);
    assert.equal(await store.findCharge(uow.direct, request.id), undefined);
    await ledger.hold(request);
    assert.equal((await store.findHold(uow.direct, request.id))?.id, request.id);
    assert.equal(await store.findCharge(uow.direct, request.id), undefined, 'no charge while it runs');
    await ledger.settle(request, chatOutcome(3_210), 'gpt-5.4-mini', false);
    assert.equal(await store.findHold(uow.direct, request.id), undefined, 'the settlement took the hold');
    assert.deepEqual(await store.findCharge(uow.direct, request.id), { status: 'succeeded', costMicro: 3_210 });
  });

  test('an old in_progress request is abandoned once, by compare-and-set; a settled one is left as it was', async () => {
    const user = await createUser(t.handle.db, { balanceMicro: 100_000 });
    const stale = await oldRequest(user.id, 50);
    const fresh = await oldRequest(user.id, 2_000_000);
    const settled = await oldRequest(user.id, 60, 'succeeded');
    const mine = (await store.findStaleRequests(uow.direct, 1_000_000, 1_000)).filter((r) => [stale, fresh, settled].includes(r.id));
    assert.deepEqual(mine.map((r) => [r.id, r.user_id, Number(r.hold_micro), r.model, Number(r.created_at)]), [[stale, user.id, 7_000, 'gpt-5.4-mini', 40]]);
    assert.equal(await uow.transaction((tx) => store.abandonRequest(tx, stale, 5_000, 40)), true);
    assert.equal(await uow.transaction((tx) => store.abandonRequest(tx, stale, 6_000, 40)), false, 'a second move changes nothing');
    assert.equal(await uow.transaction((tx) => store.abandonRequest(tx, settled, 6_000, 50)), false);
    const rows = await t.handle.db.selectFrom('chat_requests').select(['id', 'status', 'cost_micro', 'error_code', 'latency_ms', 'finished_at']).where('id', 'in', [stale, settled]).orderBy('id').execute();
    const byId = new Map(rows.map((r) => [r.id, [r.status, Number(r.cost_micro), r.error_code, r.latency_ms === null ? null : Number(r.latency_ms), r.finished_at === null ? null : Number(r.finished_at)]]));
    assert.deepEqual(byId.get(stale), ['abandoned', 0, 'abandoned', 4_960, 5_000]);
    assert.deepEqual(byId.get(settled), ['succeeded', 0, null, null, null]);
    assert.equal((await store.findStaleRequests(uow.direct, 1_000_000, 1_000)).some((r) => r.id === stale), false, 'no longer in_progress');
  });

  test('an abandonment rolls back with its transaction', async () => {
    const user = await createUser(t.handle.db, { balanceMicro: 100_000 });
    const stale = await oldRequest(user.id, 70);
    await assert.rejects(
      uow.transaction(async (tx) => {
        assert.equal(await store.abandonRequest(tx, stale, 5_000, 60), true);
        throw new Error('later in the same transaction');
      }),
      /later in the same transaction/,
    );
    assert.equal((await store.findStaleRequests(uow.direct, 1_000_000, 1_000)).some((r) => r.id === stale), true, 'still in_progress');
  });
});
