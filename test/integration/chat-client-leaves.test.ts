/**
 * A client that leaves pays for what the upstream billed (issue 30, item 1): in each protocol (chat
 * completions, Responses, messages), streamed and not, a client that disconnects early is charged
 * exactly the usage the fake reports once the gateway has read the upstream to its end, and at least
 * the prompt the fake billed when no usage comes; the books verify after each. The fakes record what
 * they billed (test/fakes/fake-upstream.ts, `billed`), so each test compares the charge with the
 * vendor's bill rather than with our own arithmetic.
 */
import assert from 'node:assert/strict';
import { after, beforeEach, test } from 'node:test';
import { verifyLedger } from '../../src/adapters/db/ledger/ledger-checks.ts';
import type { FakeBill, RecordedRequest } from '../fakes/fake-upstream.ts';
import { expectedCost, latestRow, prices, startChatFakes } from '../support/chat-gateway.ts';
import { describeEachMode, type TestGateway } from '../support/gateway.ts';
import { createLimitedKey } from '../support/limited-keys.ts';

const fakes = await startChatFakes();
after(() => fakes.close());

/** How long the gateway still reads the upstream of a client that left, in these gateways. */
const UPSTREAM_AFTER_LEAVE_MS = 2_500;

const LONG_TEXT = Array.from({ length: 60 }, (_, i) => `word${i}`).join(' ');

interface Leaving {
  path: string;
  body: Record<string, unknown>;
  headers?: Record<string, string>;
}

const PROTOCOLS: Record<string, (stream: boolean) => Leaving> = {
  'chat completions': (stream) => ({ path: '/api/v1/chat/completions', body: { model: 'gpt-5.4-mini', messages: [{ role: 'user', content: 'Talk at length.' }], stream } }),
  responses: (stream) => ({ path: '/api/v1/responses', body: { model: 'gpt-5.4-mini', input: 'Talk at length.', stream } }),
  messages: (stream) => ({ path: '/api/v1/messages', body: { model: 'claude-sonnet-4-6', max_tokens: 2000, messages: [{ role: 'user', content: 'Talk at length.' }], stream }, headers: { 'anthropic-version': '2023-06-01' } }),
};

/** Sends the request and goes away: a whole answer after `leaveAfterMs`, a stream once its first bytes of content have arrived. */
async function sendAndLeave(gw: TestGateway, key: string, leaving: Leaving, leaveAfterMs = 200): Promise<void> {
  const controller = new AbortController();
  const stream = leaving.body.stream === true;
  const timer = stream ? undefined : setTimeout(() => controller.abort(), leaveAfterMs);
  try {
    const res = await fetch(`${gw.url}${leaving.path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...leaving.headers },
      body: JSON.stringify(leaving.body),
      signal: controller.signal,
    });
    assert.equal(res.status, 200);
    const reader = res.body?.getReader();
    assert.ok(reader);
    let seen = '';
    for (;;) {
      const { done, value } = await reader.read();
      if (done) assert.fail('the answer ended before the client left');
      seen += Buffer.from(value).toString();
      if (/word\d/.test(seen)) break;
    }
    controller.abort();
  } catch (error) {
    if (!controller.signal.aborted) throw error;
  } finally {
    clearTimeout(timer);
  }
}

/** The fake's one request of this test, and what it billed. */
async function billOf(fake: { requests: RecordedRequest[] }): Promise<FakeBill> {
  assert.equal(fake.requests.length, 1, 'one upstream call');
  const billed = await fake.requests[0]?.billed;
  assert.ok(billed, 'the upstream billed the request');
  return billed;
}

function costOf(p: Awaited<ReturnType<typeof prices>>, bill: FakeBill): number {
  return expectedCost(p, { input: bill.inputTokens, output: bill.outputTokens, cached: bill.cachedInputTokens, writes: bill.cacheCreationTokens });
}

describeEachMode(
  'a client that leaves',
  (ctx) => {
    beforeEach(() => fakes.reset());

    for (const [name, leaving] of Object.entries(PROTOCOLS)) {
      const fake = () => (name === 'messages' ? fakes.anthropic : fakes.openai);
      const model = String(leaving(false).body.model);

      test(`${name}, not streamed: the upstream's answer is awaited and its usage charged exactly`, async () => {
        const { key, userId } = await ctx.gw.createUser(100);
        fake().enqueue({ text: LONG_TEXT, delayMs: 700, usage: { input: 200, output: 300 } });
        await sendAndLeave(ctx.gw, key, leaving(false));
        const bill = await billOf(fake());
        assert.equal(await fake().requests[0]?.outcome, 'completed', 'the gateway read the whole answer after the client left');
        const row = await latestRow(ctx.gw, userId, 10_000);
        assert.equal(row.status, 'client_closed');
        assert.deepEqual([row.input_tokens, row.output_tokens, row.usage_estimated], [bill.inputTokens, bill.outputTokens, 0]);
        assert.equal(row.cost_micro, costOf(await prices(ctx.gw, key, model), bill), 'charged what the upstream billed');
        assert.deepEqual(await verifyLedger(ctx.gw.gateway.services.database.db), []);
      });

      test(`${name}, streamed and cut early: the upstream is read to its end silently and its usage charged exactly, hidden reasoning included`, async () => {
        const { key, userId } = await ctx.gw.createUser(100);
        fake().enqueue({ text: LONG_TEXT, chunkDelayMs: 15, hiddenReasoningTokens: 700 });
        await sendAndLeave(ctx.gw, key, leaving(true));
        const bill = await billOf(fake());
        assert.equal(await fake().requests[0]?.outcome, 'completed', 'the upstream stream was read to its end');
        const row = await latestRow(ctx.gw, userId, 10_000);
        assert.equal(row.status, 'client_closed');
        assert.deepEqual([row.input_tokens, row.output_tokens, row.usage_estimated], [bill.inputTokens, bill.outputTokens, 0]);
        assert.ok(bill.outputTokens > 700, 'the bill counts the hidden reasoning');
        assert.equal(row.cost_micro, costOf(await prices(ctx.gw, key, model), bill), 'charged what the upstream billed');
        assert.deepEqual(await verifyLedger(ctx.gw.gateway.services.database.db), []);
      });
    }

    test('a stream whose usage never comes (the upstream cuts it after the client left) is charged the prompt estimate and the output seen, never less than the prompt billed', async () => {
      const { key, userId } = await ctx.gw.createUser(100);
      fakes.anthropic.enqueue({ text: LONG_TEXT, chunkDelayMs: 15, cutAfterChunks: 30 });
      await sendAndLeave(ctx.gw, key, PROTOCOLS.messages?.(true) as Leaving);
      const bill = await billOf(fakes.anthropic);
      const row = await latestRow(ctx.gw, userId, 10_000);
      assert.equal(row.status, 'client_closed');
      assert.equal(row.usage_estimated, 1);
      const p = await prices(ctx.gw, key, 'claude-sonnet-4-6');
      assert.ok(row.input_tokens >= bill.inputTokens, `input ${row.input_tokens} covers the prompt billed (${bill.inputTokens})`);
      assert.ok(row.cost_micro >= costOf(p, { ...bill, outputTokens: 0 }), 'at least the prompt the upstream billed');
      assert.ok(row.output_tokens > 0, 'the output seen is charged');
      assert.deepEqual(await verifyLedger(ctx.gw.gateway.services.database.db), []);
    });

    test('a whole answer reported without usage is charged the prompt estimate and its output, not 0', async () => {
      const { key, userId } = await ctx.gw.createUser(100);
      fakes.openai.enqueue({ text: LONG_TEXT, delayMs: 500, omitUsage: true });
      await sendAndLeave(ctx.gw, key, PROTOCOLS['chat completions']?.(false) as Leaving);
      const bill = await billOf(fakes.openai);
      const row = await latestRow(ctx.gw, userId, 10_000);
      assert.equal(row.status, 'client_closed');
      assert.ok(row.cost_micro >= costOf(await prices(ctx.gw, key, 'gpt-5.4-mini'), bill), 'at least what the upstream billed');
      assert.deepEqual(await verifyLedger(ctx.gw.gateway.services.database.db), []);
    });

    test('a whole answer slower than the bound is cancelled there and charged the prompt estimate, never 0', async () => {
      const { key, userId } = await ctx.gw.createUser(100);
      fakes.anthropic.enqueue({ text: LONG_TEXT, delayMs: UPSTREAM_AFTER_LEAVE_MS + 2_000 });
      await sendAndLeave(ctx.gw, key, PROTOCOLS.messages?.(false) as Leaving);
      const row = await latestRow(ctx.gw, userId, 10_000);
      assert.equal(await fakes.anthropic.requests[0]?.outcome, 'aborted', 'cancelled at the bound');
      const bill = await billOf(fakes.anthropic);
      assert.equal(row.status, 'client_closed');
      assert.equal(row.usage_estimated, 1);
      assert.ok(row.input_tokens >= bill.inputTokens, `input ${row.input_tokens} covers the prompt billed (${bill.inputTokens})`);
      assert.ok(row.cost_micro >= costOf(await prices(ctx.gw, key, 'claude-sonnet-4-6'), { ...bill, outputTokens: 0 }), 'at least the prompt the upstream billed');
      assert.deepEqual(await verifyLedger(ctx.gw.gateway.services.database.db), []);
    });

    test('the upstream of a departed client is read for a bounded time, and holds its key concurrency lease until it ends', async () => {
      const { key: owner, userId } = await ctx.gw.createUser(100);
      const limited = await createLimitedKey(ctx.gw, owner, { concurrentGenerations: 1 });
      // Longer than the bound: 30 frames 200 ms apart.
      fakes.openai.enqueue({ text: LONG_TEXT, chunkDelayMs: 200 });
      await sendAndLeave(ctx.gw, limited.key, PROTOCOLS['chat completions']?.(true) as Leaving);
      // Time for the gateway to see the connection close (not a measure: the answer is the same later).
      await new Promise((resolve) => setTimeout(resolve, 300));
      const busy = await ctx.gw.api(limited.key, 'POST', '/api/v1/chat/completions', { model: 'gpt-5.4-mini', messages: [{ role: 'user', content: 'hi' }] });
      assert.equal(busy.status, 429, 'the upstream still works for the departed client: its lease is held');
      assert.equal(await fakes.openai.requests[0]?.outcome, 'aborted', 'cancelled at the bound');
      const bill = await billOf(fakes.openai);
      const row = await latestRow(ctx.gw, userId, 10_000);
      assert.equal(row.status, 'client_closed');
      assert.ok(row.cost_micro >= costOf(await prices(ctx.gw, owner, 'gpt-5.4-mini'), { ...bill, outputTokens: 0 }), 'at least the prompt the upstream billed');
      const free = await ctx.gw.api(limited.key, 'POST', '/api/v1/chat/completions', { model: 'gpt-5.4-mini', messages: [{ role: 'user', content: 'hi' }] });
      assert.equal(free.status, 200, 'the lease was given back when the upstream ended');
      assert.deepEqual(await verifyLedger(ctx.gw.gateway.services.database.db), []);
    });
  },
  { configFile: { ...fakes.config, chat: { ...(fakes.config.chat as Record<string, unknown>), upstreamAfterLeaveMs: UPSTREAM_AFTER_LEAVE_MS } } },
);
