/**
 * The crash side of chat billing: a request whose process stopped between hold and settlement is
 * released in full by the chat_settle job, exactly once, even when the live process (only presumed
 * dead) settles later; running requests are left alone; shutting the gateway down settles open streams.
 */
import assert from 'node:assert/strict';
import { after, beforeEach, test } from 'node:test';
import { pino } from 'pino';
import { settleAbandonedChatRequests } from '../../src/services/chat/chat-settle.job.ts';
import { verifyLedger } from '../../src/services/ledger.service.ts';
import { balanceMicro, chatLedger, chatRow, latestRow, openAiClient, settledRow, startChatFakes } from '../support/chat-gateway.ts';
import { describeEachMode, startTestGateway } from '../support/gateway.ts';

const fakes = await startChatFakes();
after(() => fakes.close());
const quiet = pino({ level: 'silent' });

async function inProgressId(gw: Parameters<typeof chatRow>[0], userId: string): Promise<string> {
  for (let i = 0; i < 200; i++) {
    const row = await gw.gateway.services.database.db.selectFrom('chat_requests').select(['id', 'status']).where('user_id', '=', userId).executeTakeFirst();
    if (row?.status === 'in_progress') return row.id;
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

      // Running and recently marked alive: the job leaves it alone.
      assert.equal(await settleAbandonedChatRequests({ db, logger: quiet }), 0);
      // As if its process had died ten minutes ago.
      await db.updateTable('chat_requests').set({ last_seen_at: Date.now() - 10 * 60_000 }).where('id', '=', id).execute();
      assert.equal(await settleAbandonedChatRequests({ db, logger: quiet }), 1);
      assert.equal(await settleAbandonedChatRequests({ db, logger: quiet }), 0, 'idempotent');
      const abandoned = await chatRow(ctx.gw, id);
      assert.deepEqual([abandoned.status, abandoned.cost_micro], ['abandoned', 0]);
      assert.equal(await balanceMicro(ctx.gw, userId), 1_000_000, 'the hold is back');

      // The process was alive after all: its stream ends and its settlement finds the row taken.
      let text = '';
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
      assert.equal(text, 'slow words arrive one by one here');
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.equal((await chatRow(ctx.gw, id)).status, 'abandoned');
      assert.deepEqual((await chatLedger(ctx.gw, userId)).map((l) => [l.kind, l.amount + (l.kind === 'chat_hold' ? abandoned.hold_micro : -abandoned.hold_micro)]), [
        ['chat_hold', 0],
        ['chat_release', 0],
      ]);
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
      await db.updateTable('chat_requests').set({ last_seen_at: 1 }).where('id', '=', id).execute();
      await ctx.gw.gateway.services.chat.markAlive();
      assert.ok((await chatRow(ctx.gw, id)).last_seen_at > Date.now() - 5000, 'the heartbeat marked it');
      assert.equal(await settleAbandonedChatRequests({ db, logger: quiet }), 0);
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
