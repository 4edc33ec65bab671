/**
 * The per-key spend rule (src/adapters/db/ledger/key-spend-rule.ts) on both engines, through each of
 * its three writers: the book's moveKeySpend over Kysely, and the chat ledger (the SQLite writer
 * thread; PostgreSQL's chat batch and its api_key_spend_move). They share one cap: what one writer
 * holds, the others see.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { pino } from 'pino';
import { moveKeySpend } from '../../src/adapters/db/ledger/api-key-spend.repository.ts';
import { createChatLedger } from '../../src/adapters/db/ledger/chat-ledger-factory.ts';
import { kyselyLedgerBook } from '../../src/adapters/db/ledger/ledger-book.ts';
import { AppError } from '../../src/domain/errors.ts';
import { newId } from '../../src/domain/ids.ts';
import { spendMonthOf } from '../../src/domain/ledger/key-spend-period.ts';
import type { ChatLedger } from '../../src/ports/ledger.port.ts';
import { createUser } from '../../src/adapters/db/stores/account-store.ts';
import { chatOutcome, heldRequest } from '../support/chat-ledger-fixtures.ts';
import { describeEachDatabase } from '../support/databases.ts';

const quiet = pino({ level: 'silent' });

describeEachDatabase('key spend rule', (t) => {
  let ledger: ChatLedger;
  before(() => {
    ledger = createChatLedger(t.handle, quiet);
  });
  after(() => ledger.close());

  const createKey = async (userId: string, capMicro: number | null, period: 'total' | 'month' | null) => {
    const id = newId('key');
    await t.handle.db
      .insertInto('api_keys')
      .values({ id, user_id: userId, name: 'capped', prefix: id.slice(0, 8), key_hash: id, created_at: Date.now(), last_used_at: null, revoked_at: null, spend_cap_micro: capMicro, spend_cap_period: period, expires_at: null, allowed_models: null, rpm_limit: null, concurrency_limit: null, manage_keys: 0 })
      .execute();
    return id;
  };
  /** [spent, held] of the key's 'total' row and of its month's row. */
  const rows = async (keyId: string, at = Date.now()) => {
    const found = await t.handle.db.selectFrom('api_key_spend').select(['period', 'spent_micro', 'held_micro']).where('key_id', '=', keyId).execute();
    const of = (period: string) => {
      const row = found.find((r) => r.period === period);
      return row ? [Number(row.spent_micro), Number(row.held_micro)] : undefined;
    };
    return { total: of('total'), month: of(spendMonthOf(at)) };
  };
  const move = (keyId: string, spentMicro: number, heldMicro: number, guarded: boolean, at = Date.now()) =>
    t.handle.db.transaction().execute(async (tx) => (await moveKeySpend(tx, keyId, at, { spentMicro, heldMicro }, guarded)) === 'moved');

  test('a guarded move fits under a total cap or moves nothing; an unguarded one always moves both rows', async () => {
    const user = await createUser(t.handle.db, { balanceMicro: 1_000_000 });
    const key = await createKey(user.id, 10_000, 'total');
    assert.equal(await move(key, 6_000, 0, true), true);
    assert.equal(await move(key, 0, 4_000, true), true, 'exactly at the cap fits');
    assert.deepEqual(await rows(key), { total: [6_000, 4_000], month: [6_000, 4_000] });
    assert.equal(await move(key, 1, 0, true), false, 'one micro past the cap');
    assert.deepEqual(await rows(key), { total: [6_000, 4_000], month: [6_000, 4_000] }, 'a refusal moves nothing');
    assert.equal(await move(key, 3_000, -4_000, false), true, 'a settlement is not guarded');
    assert.deepEqual(await rows(key), { total: [9_000, 0], month: [9_000, 0] });
  });

  test('a monthly cap guards the month of the movement; last month\'s spend does not count, the total follows', async () => {
    const user = await createUser(t.handle.db, { balanceMicro: 1_000_000 });
    const key = await createKey(user.id, 5_000, 'month');
    const lastMonth = Date.now() - 40 * 86_400_000;
    assert.equal(await move(key, 5_000, 0, true, lastMonth), true);
    assert.equal(await move(key, 5_000, 0, true), true, 'a new month, a new cap');
    assert.equal(await move(key, 1, 0, true), false);
    assert.deepEqual(await rows(key), { total: [10_000, 0], month: [5_000, 0] });
    assert.deepEqual((await rows(key, lastMonth)).month, [5_000, 0]);
  });

  test('a key without a cap takes any guarded move', async () => {
    const user = await createUser(t.handle.db, { balanceMicro: 1_000_000 });
    const key = await createKey(user.id, null, null);
    assert.equal(await move(key, 900_000_000, 0, true), true);
    assert.deepEqual(await rows(key), { total: [900_000_000, 0], month: [900_000_000, 0] });
  });

  test('the chat ledger and the book share the cap: a hold counts against a debit, a debit against a hold', async () => {
    const user = await createUser(t.handle.db, { balanceMicro: 1_000_000 });
    const key = await createKey(user.id, 10_000, 'total');
    const request = { ...heldRequest(user.id, 7_000), apiKeyId: key };
    await ledger.hold(request);
    assert.deepEqual(await rows(key), { total: [0, 7_000], month: [0, 7_000] });
    const debit = (amountMicro: number) =>
      t.handle.db.transaction().execute((tx) => kyselyLedgerBook.post(tx, { userId: user.id, kind: 'generation_debit', reference: newId('task'), amountMicro: -amountMicro, apiKeyId: key }));
    await assert.rejects(debit(3_001), (error: unknown) => error instanceof AppError && error.code === 'key_spend_cap_reached');
    await debit(3_000);
    assert.deepEqual(await rows(key), { total: [3_000, 7_000], month: [3_000, 7_000] });
    await assert.rejects(ledger.hold({ ...heldRequest(user.id, 1), apiKeyId: key }), (error: unknown) => error instanceof AppError && error.code === 'key_spend_cap_reached');
    // The settlement releases the hold and charges no more than the cap leaves (here all of it: 7 000).
    assert.deepEqual(await ledger.settle(request, chatOutcome(8_000), 'gpt-5.4-mini', false), { uncollectedMicro: 1_000 });
    assert.deepEqual(await rows(key), { total: [10_000, 0], month: [10_000, 0] });
  });

  test("a member's monthly cap binds all their organization keys in every writer; a person's key has none", async () => {
    const owner = await createUser(t.handle.db, { balanceMicro: 0 });
    const member = await createUser(t.handle.db, { balanceMicro: 0 });
    const organization = await createUser(t.handle.db, { balanceMicro: 1_000_000 });
    await t.handle.db.updateTable('users').set({ kind: 'organization', name: 'contract' }).where('id', '=', organization.id).execute();
    await t.handle.db
      .insertInto('organization_members')
      .values([
        { organization_id: organization.id, user_id: owner.id, role: 'owner', created_at: Date.now(), monthly_cap_micro: null },
        { organization_id: organization.id, user_id: member.id, role: 'member', created_at: Date.now(), monthly_cap_micro: 10_000 },
      ])
      .execute();
    const [one, two] = [await createKey(organization.id, null, null), await createKey(organization.id, 50_000, 'month')];
    await t.handle.db.updateTable('api_keys').set({ member_id: member.id }).where('id', 'in', [one, two]).execute();
    const memberRow = async () => {
      const row = await t.handle.db.selectFrom('organization_member_spend').select(['spent_micro', 'held_micro']).where('organization_id', '=', organization.id).where('user_id', '=', member.id).where('spend_month', '=', spendMonthOf(Date.now())).executeTakeFirst();
      return row ? [Number(row.spent_micro), Number(row.held_micro)] : undefined;
    };
    const debit = (keyId: string, amountMicro: number) =>
      t.handle.db.transaction().execute((tx) => kyselyLedgerBook.post(tx, { userId: organization.id, kind: 'generation_debit', reference: newId('task'), amountMicro: -amountMicro, apiKeyId: keyId }));

    // The book: two keys, one cap.
    await debit(one, 4_000);
    await debit(two, 4_000);
    await assert.rejects(debit(one, 2_001), (error: unknown) => error instanceof AppError && error.code === 'key_spend_cap_reached' && /organization/.test(error.message));
    assert.deepEqual(await memberRow(), [8_000, 0]);
    assert.deepEqual(await rows(one), { total: [4_000, 0], month: [4_000, 0] }, "a refusal moves neither the member's row nor the key's");
    // The chat ledger: a hold above what is left is refused; within it, held; the settlement stays within the member's room.
    await assert.rejects(ledger.hold({ ...heldRequest(organization.id, 2_001), apiKeyId: two }), (error: unknown) => error instanceof AppError && error.code === 'key_spend_cap_reached');
    assert.deepEqual(await rows(two), { total: [4_000, 0], month: [4_000, 0] });
    const request = { ...heldRequest(organization.id, 1_500), apiKeyId: two };
    await ledger.hold(request);
    assert.deepEqual(await memberRow(), [8_000, 1_500]);
    await assert.rejects(debit(one, 501), (error: unknown) => error instanceof AppError && error.code === 'key_spend_cap_reached', 'a hold counts against a debit');
    assert.deepEqual(await ledger.settle(request, chatOutcome(2_500), 'gpt-5.4-mini', false), { uncollectedMicro: 500 });
    assert.deepEqual(await memberRow(), [10_000, 0]);
    // A refund gives the member's room back; a key of the organization without a member, and the owner's person key, are not bound.
    await t.handle.db.transaction().execute((tx) => kyselyLedgerBook.post(tx, { userId: organization.id, kind: 'generation_refund', reference: newId('task'), amountMicro: 1_000, apiKeyId: one }));
    assert.deepEqual(await memberRow(), [9_000, 0]);
    const unowned = await createKey(organization.id, null, null);
    await debit(unowned, 50_000);
    assert.equal(await move(await createKey(owner.id, null, null), 900_000, 0, true), true);
  });
});
