/**
 * Long-context tiers and context windows (issue 30, item 2). Above a model's threshold of prompt
 * tokens (cache reads included) the whole request is billed at the tier's published prices; the hold
 * covers the tier whenever the prompt estimate is above the threshold; a model whose tier the catalog
 * does not price (qwen3.6-plus) refuses such a prompt before the hold, and so does priority
 * processing there; a prompt above the context window is refused before the hold in the client's
 * protocol, naming the messages. Prices (USD per 1M tokens) as published: gpt-5.4 above 272K input 5.00,
 * cached 0.50, output 22.50 (platform.openai.com/docs/pricing, 2× input and 1.5× output); gemini-3.1-pro
 * above 200K input 4.00, cached 0.40, output 18.00 (ai.google.dev/gemini-api/docs/pricing).
 */
import assert from 'node:assert/strict';
import { after, beforeEach, test } from 'node:test';
import { verifyLedger } from '../../src/adapters/db/ledger/ledger-checks.ts';
import { balanceMicro, chatLedger, heldMicro, latestRow, startChatFakes } from '../support/chat-gateway.ts';
import { describeEachMode, type TestGateway } from '../support/gateway.ts';

const fakes = await startChatFakes();
after(() => fakes.close());
const chatConfig = fakes.config as { providers: Record<string, unknown>; routes: Record<string, unknown> };
const config = {
  ...chatConfig,
  routes: { ...chatConfig.routes, 'gemini-3.1-pro': [{ provider: 'oa', model: 'gemini-up' }], 'qwen3.6-plus': [{ provider: 'oa', model: 'qwen-up' }] },
};

/** A user message of about `tokens` estimated tokens (one per byte): the hold's estimate is above it. */
const longText = (tokens: number) => 'lorem ipsum dolor sit amet '.repeat(Math.ceil(tokens / 27));

async function post(gw: TestGateway, key: string, path: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${gw.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const chat = (model: string, text: string, extra: Record<string, unknown> = {}) => ({ model, messages: [{ role: 'user', content: text }], max_tokens: 200, ...extra });

/** Σ tokens × price (micro-USD per million), rounded up once. */
const priced = (...parts: Array<[number, number]>) => Math.ceil(parts.reduce((sum, [tokens, price]) => sum + tokens * price, 0) / 1_000_000);

async function assertCharged(gw: TestGateway, userId: string, expected: number): Promise<{ hold: number }> {
  const row = await latestRow(gw, userId);
  assert.equal(row.status, 'succeeded');
  assert.equal(Number(row.cost_micro), expected, 'billed at the published price to the micro-USD');
  assert.ok(Number(row.cost_micro) <= Number(row.hold_micro), 'within the hold');
  assert.equal(await heldMicro(gw, userId), 0);
  const lines = (await chatLedger(gw, userId)).filter((l) => l.reference === row.id);
  assert.equal(lines.reduce((sum, l) => sum - l.amount, 0), expected);
  assert.deepEqual(await verifyLedger(gw.gateway.services.database.db), []);
  return { hold: Number(row.hold_micro) };
}

async function assertRefusedBeforeHold(gw: TestGateway, userId: string, balanceBefore: number): Promise<void> {
  assert.equal(fakes.openai.requests.length + fakes.anthropic.requests.length, 0, 'nothing was sent upstream');
  assert.equal(await heldMicro(gw, userId), 0);
  assert.equal(await balanceMicro(gw, userId), balanceBefore);
  assert.equal((await chatLedger(gw, userId)).length, 0, 'no hold was written');
}

describeEachMode(
  'long-context tiers and context windows',
  (ctx) => {
    beforeEach(() => fakes.reset());

    test('a 300K-token prompt to gpt-5.4 is billed at the long-context prices for the whole request, held at them', async () => {
      const { key, userId } = await ctx.gw.createUser(500);
      fakes.openai.enqueue({ text: 'ok', usage: { input: 300_000, output: 100 } });
      const answer = await post(ctx.gw, key, '/api/v1/chat/completions', chat('gpt-5.4', longText(301_000)));
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      // 300,000 × 5.00 + 100 × 22.50 = 1,500,000 + 2,250 micro-USD (flat: 751,500).
      const { hold } = await assertCharged(ctx.gw, userId, priced([300_000, 5_000_000], [100, 22_500_000]));
      const row = await latestRow(ctx.gw, userId);
      assert.ok(hold >= priced([Number(row.input_tokens), 5_000_000], [200, 22_500_000]), `held at the tier (${hold})`);
    });

    test('cache reads count toward the threshold and are billed at the tier’s cached price', async () => {
      const { key, userId } = await ctx.gw.createUser(500);
      fakes.openai.enqueue({ text: 'ok', usage: { input: 300_000, cached: 280_000, output: 100 } });
      const answer = await post(ctx.gw, key, '/api/v1/chat/completions', chat('gpt-5.4', longText(301_000)));
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      // 20,000 × 5.00 + 280,000 × 0.50 + 100 × 22.50.
      await assertCharged(ctx.gw, userId, priced([20_000, 5_000_000], [280_000, 500_000], [100, 22_500_000]));
    });

    test('a prompt whose estimate crosses the threshold but whose reported size does not is billed at the flat prices', async () => {
      const { key, userId } = await ctx.gw.createUser(500);
      fakes.openai.enqueue({ text: 'ok', usage: { input: 250_000, output: 100 } });
      const answer = await post(ctx.gw, key, '/api/v1/chat/completions', chat('gpt-5.4', longText(301_000)));
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      // 250,000 × 2.50 + 100 × 15.00.
      const { hold } = await assertCharged(ctx.gw, userId, priced([250_000, 2_500_000], [100, 15_000_000]));
      assert.ok(hold > priced([301_000, 5_000_000]), `the hold was at the tier (${hold})`);
    });

    test('gemini-3.1-pro above 200K prompt tokens costs 4.00 / 18.00', async () => {
      const { key, userId } = await ctx.gw.createUser(500);
      fakes.openai.enqueue({ text: 'ok', usage: { input: 210_000, output: 100 } });
      const answer = await post(ctx.gw, key, '/api/v1/chat/completions', chat('gemini-3.1-pro', longText(211_000)));
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      await assertCharged(ctx.gw, userId, priced([210_000, 4_000_000], [100, 18_000_000]));
    });

    test('qwen3.6-plus, whose tier above 256K has no published price, refuses a prompt that may cross it, before the hold', async () => {
      const { key, userId } = await ctx.gw.createUser(500);
      const before = await balanceMicro(ctx.gw, userId);
      const answer = await post(ctx.gw, key, '/api/v1/chat/completions', chat('qwen3.6-plus', longText(260_000)));
      assert.equal(answer.status, 400);
      assert.equal((answer.body.error as { param: string }).param, 'messages');
      await assertRefusedBeforeHold(ctx.gw, userId, before);
    });

    test('priority processing has no long-context price: refused before the hold', async () => {
      const { key, userId } = await ctx.gw.createUser(500);
      const before = await balanceMicro(ctx.gw, userId);
      const answer = await post(ctx.gw, key, '/api/v1/chat/completions', chat('gpt-5.4', longText(301_000), { service_tier: 'priority' }));
      assert.equal(answer.status, 400);
      assert.equal((answer.body.error as { param: string }).param, 'service_tier');
      await assertRefusedBeforeHold(ctx.gw, userId, before);
    });

    test('a prompt above the context window is refused before the hold, in each protocol’s shape, naming the messages', async () => {
      const { key, userId } = await ctx.gw.createUser(500);
      const before = await balanceMicro(ctx.gw, userId);
      // One token per byte by any count: 210,000 tokens against claude-sonnet-4-6's 200,000.
      const text = 'x,'.repeat(105_000);
      const openai = await post(ctx.gw, key, '/api/v1/chat/completions', chat('claude-sonnet-4-6', text));
      assert.equal(openai.status, 400);
      const error = openai.body.error as { param: string; message: string; type: string };
      assert.deepEqual([error.param, error.type], ['messages', 'invalid_request_error']);
      assert.match(error.message, /context window of 200,000 tokens/);
      const anthropic = await post(ctx.gw, key, '/api/v1/messages', { model: 'claude-sonnet-4-6', max_tokens: 200, messages: [{ role: 'user', content: text }] });
      assert.equal(anthropic.status, 400);
      assert.equal(anthropic.body.type, 'error');
      assert.equal((anthropic.body.error as { type: string }).type, 'invalid_request_error');
      assert.match((anthropic.body.error as { message: string }).message, /messages/);
      await assertRefusedBeforeHold(ctx.gw, userId, before);
    });

    test('a prompt whose byte estimate is above the window but whose count is not still goes through', async () => {
      const { key, userId } = await ctx.gw.createUser(500);
      fakes.anthropic.enqueue({ text: 'ok', usage: { input: 60_000, output: 10 } });
      // About 240,000 bytes, about 45,000 tokens by the approximate count.
      const answer = await post(ctx.gw, key, '/api/v1/messages', { model: 'claude-sonnet-4-6', max_tokens: 200, messages: [{ role: 'user', content: longText(240_000) }] });
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      await assertCharged(ctx.gw, userId, priced([60_000, 3_000_000], [10, 15_000_000]));
    });

    test('/models, /cost and the catalog show the threshold and the tier prices', async () => {
      const { key } = await ctx.gw.createUser(1);
      const models = await ctx.gw.api(key, 'GET', '/api/v1/models');
      const list = (models.body as { data: Array<{ id: string; pricing?: { long_context?: Record<string, unknown> } }> }).data;
      assert.deepEqual(list.find((m) => m.id === 'gpt-5.4')?.pricing?.long_context, { above_prompt_tokens: 272_000, input: '5', output: '22.5', cached_input: '0.5' });
      assert.deepEqual(list.find((m) => m.id === 'gpt-5.5')?.pricing?.long_context, { above_prompt_tokens: 272_000, input: '10', output: '45', cached_input: '1' });
      assert.deepEqual(list.find((m) => m.id === 'gemini-3.1-pro')?.pricing?.long_context, { above_prompt_tokens: 200_000, input: '4', output: '18', cached_input: '0.4' });
      assert.deepEqual(list.find((m) => m.id === 'qwen3.6-plus')?.pricing?.long_context, { above_prompt_tokens: 256_000, refused: true });
      const cost = await ctx.gw.api(undefined, 'GET', '/api/v1/cost/gpt-5.4');
      assert.deepEqual((cost.body as { tokens: { longContext: unknown } }).tokens.longContext, { abovePromptTokens: 272_000, input: '5', output: '22.5', cachedInput: '0.5' });
      const catalog = await ctx.gw.api(undefined, 'GET', '/api/v1/catalog/gemini-3.1-pro');
      const tiers = (catalog.body as { pricing: Array<{ key: string; price: string; dimensions?: Record<string, string> }> }).pricing;
      assert.deepEqual(tiers.filter((t) => t.key.startsWith('long_context_')).map((t) => [t.key, t.price, t.dimensions?.promptTokensAbove]), [
        ['long_context_input', '4', '200000'],
        ['long_context_output', '18', '200000'],
        ['long_context_cached_input', '0.4', '200000'],
      ]);
    });
  },
  { configFile: config },
);
