/**
 * The crash side of chat billing: a request whose process stopped between hold and settlement is
 * released in full by the chat_settle job, exactly once, even when the live process (only presumed
 * dead) settles later; running requests are left alone; shutting the gateway down settles open streams.
 */
import assert from 'node:assert/strict';
import { after, beforeEach, test } from 'node:test';
import { pino } from 'pino';
import { newId } from '../../src/domain/ids.ts';
import { settleAbandonedChatRequests } from '../../src/services/chat/chat-settle.job.ts';
import { postLedgerEntry } from '../../src/adapters/db/ledger/ledger-posting.ts';
import { verifyLedger } from '../../src/adapters/db/ledger/ledger-checks.ts';
import { chatSettlePorts } from '../support/chat-settle-ports.ts';
import { balanceMicro, chatLedger, chatRow, heldMicro, latestRow, openAiClient, settledRow, startChatFakes } from '../support/chat-gateway.ts';
import { describeEachMode, startTestGateway } from '../support/gateway.ts';

const fakes = await startChatFakes();
after(() => fakes.close());
const quiet = pino({ level: 'silent' });

/** The id of the user's running request (its hold's row). */
async function inProgressId(gw: Parameters<typeof chatRow>[0], userId: string): Promise<string> {
  for (let i = 0; i < 200; i++) {
    const hold = await gw.gateway.services.database.db.selectFrom('chat_holds').select('id').where('user_id', '=', userId).executeTakeFirst();
    if (hold) return hold.id;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('no request in progress');
}

describeEachMode(
  'chat settlement after a crash',
  (ctx) => {
    beforeEach(() => fakes.reset());

    test('a request not heard from is released in full as abandoned, once; a late live settlement moves no money', async () => {
      const { key, userId } = await ctx.gw.createUser(100);
      const db = ctx.gw.gateway.services.database.db;
      fakes.openai.enqueue({ text: 'slow words arrive one by one here', chunkDelayMs: 60 });
      const stream = await openAiClient(ctx.gw, key).chat.completions.create({ model: 'gpt-5.4-mini', messages: [{ role: 'user', content: 'hi' }], stream: true });
      const id = await inProgressId(ctx.gw, userId);
      const held = await heldMicro(ctx.gw, userId);
      assert.ok(held > 0, 'the running request holds money');
      assert.equal(await balanceMicro(ctx.gw, userId), 1_000_000, 'a hold is not a movement');
      assert.equal(((await ctx.gw.api(key, 'GET', '/api/v1/user/me')).body as { data: { balance: number } }).data.balance, Math.floor((1_000_000 - held) / 10_000), '/user/me shows what can be spent');

      // Running and recently marked alive: the job leaves it alone.
      assert.equal(await settleAbandonedChatRequests({ ...chatSettlePorts(db), logger: quiet }), 0);
      // As if its process had died ten minutes ago.
      await db.updateTable('chat_holds').set({ last_seen_at: Date.now() - 10 * 60_000 }).where('id', '=', id).execute();
      assert.equal(await settleAbandonedChatRequests({ ...chatSettlePorts(db), logger: quiet }), 1);
      assert.equal(await settleAbandonedChatRequests({ ...chatSettlePorts(db), logger: quiet }), 0, 'idempotent');
      const abandoned = await chatRow(ctx.gw, id);
      assert.deepEqual([abandoned.status, abandoned.cost_micro, abandoned.hold_micro], ['abandoned', 0, held]);
      assert.equal(await heldMicro(ctx.gw, userId), 0, 'the hold is back');

      // The process was alive after all: its stream ends and its settlement finds the hold gone.
      let text = '';
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
      assert.equal(text, 'slow words arrive one by one here');
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.equal((await chatRow(ctx.gw, id)).status, 'abandoned');
      assert.deepEqual(await chatLedger(ctx.gw, userId), [], 'nothing charged');
      assert.deepEqual([await balanceMicro(ctx.gw, userId), await heldMicro(ctx.gw, userId)], [1_000_000, 0]);
      assert.deepEqual(await verifyLedger(db), []);
    });

    test('a request held before migration 009 (a chat_hold entry, an in_progress row) is released once the old way', async () => {
      const { userId } = await ctx.gw.createUser(100);
      const db = ctx.gw.gateway.services.database.db;
      const id = newId('chat');
      const long = Date.now() - 10 * 60_000;
      await db.transaction().execute(async (tx) => {
        await postLedgerEntry(tx, { userId, kind: 'chat_hold', reference: id, amountMicro: -30_000 });
        await tx
          .insertInto('chat_requests')
          .values({ id, user_id: userId, api_key_id: null, model: 'gpt-5.4-mini', protocol: 'openai', provider: null, upstream_model: null, stream: 1, status: 'in_progress', input_tokens: 0, output_tokens: 0, cached_tokens: 0, cache_creation_tokens: 0, usage_estimated: 0, hold_micro: 30_000, cost_micro: 0, stop_reason: null, latency_ms: null, first_byte_ms: null, error_code: null, error_message: null, created_at: long, finished_at: null, last_seen_at: long })
          .execute();
      });
      assert.equal(await balanceMicro(ctx.gw, userId), 970_000);
      assert.equal(await settleAbandonedChatRequests({ ...chatSettlePorts(db), logger: quiet }), 1);
      assert.equal(await settleAbandonedChatRequests({ ...chatSettlePorts(db), logger: quiet }), 0, 'idempotent');
      assert.equal((await chatRow(ctx.gw, id)).status, 'abandoned');
      assert.deepEqual((await chatLedger(ctx.gw, userId)).map((l) => [l.kind, l.amount]), [['chat_hold', -30_000], ['chat_release', 30_000]]);
      assert.equal(await balanceMicro(ctx.gw, userId), 1_000_000);
      assert.deepEqual(await verifyLedger(db), []);
    });

    test('running requests are marked alive while they last', async () => {
      const { key, userId } = await ctx.gw.createUser(100);
      const db = ctx.gw.gateway.services.database.db;
      fakes.openai.enqueue({ text: 'a b c d e f', chunkDelayMs: 40 });
      const stream = await openAiClient(ctx.gw, key).chat.completions.create({ model: 'gpt-5.4-mini', messages: [{ role: 'user', content: 'hi' }], stream: true });
      const id = await inProgressId(ctx.gw, userId);
      assert.equal(ctx.gw.gateway.services.chat.runningRequests, 1);
      await db.updateTable('chat_holds').set({ last_seen_at: 1 }).where('id', '=', id).execute();
      await ctx.gw.gateway.services.chat.markAlive();
      const hold = await db.selectFrom('chat_holds').select('last_seen_at').where('id', '=', id).executeTakeFirstOrThrow();
      assert.ok(hold.last_seen_at > Date.now() - 5000, 'the heartbeat marked it');
      assert.equal(await settleAbandonedChatRequests({ ...chatSettlePorts(db), logger: quiet }), 0);
      for await (const _ of stream) {
        // drain
      }
      assert.equal((await settledRow(ctx.gw, id)).status, 'succeeded');
      assert.equal(ctx.gw.gateway.services.chat.runningRequests, 0);
      assert.deepEqual(await verifyLedger(db), []);
    });
  },
  { configFile: fakes.config },
);

test('shutting the gateway down cancels open streams and settles them for what they used', async () => {
  const gw = await startTestGateway('embedded', { configFile: fakes.config });
  const { key, userId } = await gw.createUser(100);
  fakes.reset();
  fakes.openai.enqueue({ text: Array.from({ length: 100 }, (_, i) => `w${i}`).join(' '), chunkDelayMs: 100 });
  const stream = await openAiClient(gw, key).chat.completions.create({ model: 'gpt-5.4-mini', messages: [{ role: 'user', content: 'hi' }], stream: true });
  const reading = (async () => {
    try {
      for await (const _ of stream) {
        // read until the server ends it
      }
    } catch {
      // the stream ends with an error frame
    }
  })();
  await inProgressId(gw, userId);
  const services = gw.gateway.services;
  await Promise.all([services.chat.close(50), reading]);
  const row = await latestRow(gw, userId);
  assert.equal(row.status, 'client_closed');
  assert.ok(row.cost_micro > 0);
  assert.deepEqual(await verifyLedger(services.database.db), []);
  await gw.close();
});
