/**
 * POST /api/v1/messages/count_tokens through the official Anthropic SDK (`messages.countTokens`),
 * against whole gateways (SQLite and PostgreSQL): Claude on a strict fake of Anthropic's count
 * endpoint (the body checked against `MessageCountTokensParams`), Claude on an OpenAI-style route
 * (the gateway's estimate, flagged), Claude on the local model (its exact count), an upstream that
 * fails (the estimate), refusals in Anthropic's error shape, and never a charge.
 */
import assert from 'node:assert/strict';
import { after, beforeEach, test } from 'node:test';
import type Anthropic from '@anthropic-ai/sdk';
import { verifyLedger } from '../../src/adapters/db/ledger/ledger-checks.ts';
import { ANTHROPIC_COUNT_TOKENS_FIXTURE, ANTHROPIC_TOKENS_COUNT_RESPONSE_FIXTURE, AnthropicCountTokensFake } from '../fakes/anthropic-count-tokens.fake.ts';
import { conforms } from '../fakes/upstream-schema.ts';
import { anthropicClient, balanceMicro, heldMicro } from '../support/chat-gateway.ts';
import { describeEachMode, type TestGateway } from '../support/gateway.ts';

const fake = await AnthropicCountTokensFake.start();
after(() => fake.close());

const config = {
  providers: {
    count: { type: 'anthropic', baseUrl: fake.baseUrl, apiKey: fake.apiKey, timeoutMs: 5000 },
    // An OpenAI-style upstream has no count endpoint: it is never called for a count.
    oa: { type: 'openai', baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'sk-unused', timeoutMs: 1000 },
  },
  routes: {
    'claude-sonnet-4-6': [{ provider: 'count', model: 'claude-upstream-sonnet' }],
    'claude-haiku-4-5': [{ provider: 'oa', model: 'haiku-on-openai' }],
  },
};

const weatherTool: Anthropic.Tool = {
  name: 'get_weather',
  description: 'Weather of a city',
  input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

/** The SDK's call, with the response headers. */
async function countWithHeaders(gw: TestGateway, key: string, params: Anthropic.MessageCountTokensParams) {
  const { data, response } = await anthropicClient(gw, key).messages.countTokens(params).withResponse();
  return { count: data as Anthropic.MessageTokensCount & { estimated?: boolean }, source: response.headers.get('x-switchboard-token-count') };
}

async function assertFree(gw: TestGateway, userId: string): Promise<void> {
  assert.equal(await balanceMicro(gw, userId), 1_000_000);
  assert.equal(await heldMicro(gw, userId), 0);
  const db = gw.gateway.services.database.db;
  const kinds = (await db.selectFrom('ledger_entries').select('kind').where('user_id', '=', userId).execute()).map((e) => e.kind);
  assert.ok(!kinds.some((k) => k.startsWith('chat_')), `no chat entry: ${kinds.join(', ')}`);
  assert.equal((await db.selectFrom('chat_requests').select('id').where('user_id', '=', userId).execute()).length, 0);
  assert.deepEqual(await verifyLedger(db), []);
}

describeEachMode(
  'count_tokens (Anthropic SDK)',
  (ctx) => {
    beforeEach(() => fake.reset());

    test("an Anthropic route: the upstream's own count, its body MessageCountTokensParams with the upstream's model name, free", async () => {
      const { key, userId } = await ctx.gw.createUser(100);
      fake.enqueue({ usage: { input: 4242 } });
      const { count, source } = await countWithHeaders(ctx.gw, key, {
        model: 'claude-sonnet-4-6',
        system: 'You are terse.',
        messages: [{ role: 'user', content: 'What is the weather in Paris?' }],
        tools: [weatherTool],
        tool_choice: { type: 'auto' },
        thinking: { type: 'enabled', budget_tokens: 2048 },
      });
      assert.deepEqual(count, { input_tokens: 4242 });
      assert.deepEqual(conforms(ANTHROPIC_TOKENS_COUNT_RESPONSE_FIXTURE, count), { ok: true });
      assert.equal(source, 'counted');
      const request = fake.requests[0];
      assert.ok(request);
      assert.equal(request.path, '/v1/messages/count_tokens');
      assert.deepEqual(conforms(ANTHROPIC_COUNT_TOKENS_FIXTURE, request.body), { ok: true });
      const body = request.body as Record<string, unknown>;
      assert.equal(body.model, 'claude-upstream-sonnet');
      assert.equal(body.max_tokens, undefined);
      assert.deepEqual(body.thinking, { type: 'enabled', budget_tokens: 2048 });
      assert.deepEqual(body.tool_choice, { type: 'auto' });
      assert.equal(request.headers['x-api-key'], fake.apiKey);
      await assertFree(ctx.gw, userId);
    });

    test('the count follows the prompt (the fake counts words and marks: 3 for the message + 7)', async () => {
      const { key } = await ctx.gw.createUser(100);
      const { count } = await countWithHeaders(ctx.gw, key, { model: 'claude-sonnet-4-6', messages: [{ role: 'user', content: 'Hello there, how are you?' }] });
      assert.equal(count.input_tokens, 10);
    });

    test('an OpenAI-style route: the gateway estimates, flagged in the body and a header; nothing is sent upstream', async () => {
      const { key, userId } = await ctx.gw.createUser(100);
      const text = 'The quick brown fox jumps over the lazy dog. '.repeat(40);
      const { count, source } = await countWithHeaders(ctx.gw, key, { model: 'claude-haiku-4-5', messages: [{ role: 'user', content: text }] });
      assert.equal(source, 'estimated');
      assert.equal(count.estimated, true);
      // 40 × (9 words + 1 full stop) = 400 tokens with a byte-pair tokenizer; an estimate within a quarter of that.
      assert.ok(count.input_tokens > 300 && count.input_tokens < 500, `estimate ${count.input_tokens}`);
      await assertFree(ctx.gw, userId);
    });

    test('the local model (no route configured) counts exactly, as it bills', async () => {
      const { key } = await ctx.gw.createUser(100);
      const { count, source } = await countWithHeaders(ctx.gw, key, { model: 'claude-opus-4-7', messages: [{ role: 'user', content: 'Hello, world' }] });
      // Local tokens: Hello , world (3) and 4 per message.
      assert.deepEqual([count.input_tokens, source, count.estimated], [7, 'counted', undefined]);
    });

    test('an upstream that is down or overloaded: the estimate answers', async () => {
      const { key } = await ctx.gw.createUser(100);
      fake.enqueue({ error: { status: 529, message: 'Overloaded' } });
      const { count, source } = await countWithHeaders(ctx.gw, key, { model: 'claude-sonnet-4-6', messages: [{ role: 'user', content: 'Hello there' }] });
      assert.equal(source, 'estimated');
      assert.equal(count.estimated, true);
      assert.ok(count.input_tokens > 0);
    });

    test('refusals in Anthropic\'s error shape, naming the field', async () => {
      const { key } = await ctx.gw.createUser(100);
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ model: 'claude-sonnet-4-6', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] }, 'max_tokens'],
        [{ model: 'claude-sonnet-4-6', messages: [{ role: 'robot', content: 'x' }] }, 'messages[0].role'],
        [{ model: 'gpt-5.4', messages: [{ role: 'user', content: 'x' }] }, 'model'],
        [{ model: 'nope', messages: [{ role: 'user', content: 'x' }] }, 'model'],
      ];
      for (const [body, param] of cases) {
        const res = await ctx.gw.api(key, 'POST', '/api/v1/messages/count_tokens', body);
        assert.equal(res.status, 400, JSON.stringify(body));
        const error = res.body as { type: string; error: { type: string; code: string; param?: string; message: string } };
        assert.deepEqual([error.type, error.error.type, error.error.code], ['error', 'invalid_request_error', 'invalid_input'], JSON.stringify(body));
        assert.ok(error.error.message.includes(param) || error.error.param === param, `${param}: ${error.error.message}`);
      }
      assert.equal(fake.requests.length, 0);
      const denied = await ctx.gw.api('sb_wrong', 'POST', '/api/v1/messages/count_tokens', { model: 'claude-sonnet-4-6', messages: [] });
      assert.equal(denied.status, 401);
      assert.equal((denied.body as { error: { type: string } }).error.type, 'authentication_error');
    });
  },
  { configFile: config },
);
