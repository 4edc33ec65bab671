/**
 * Reasoning reported outside completion_tokens (issue 30, item 4). Gemini's OpenAI-compatible
 * endpoint counts its thoughts tokens in `total_tokens` only (GEMINI_THINKING_USAGE in the fake);
 * Google bills them as output, so the gateway bills max(completion_tokens, total_tokens −
 * prompt_tokens) on providers that say so (`totalIncludesReasoning`, the default for
 * generativelanguage.googleapis.com). Responses answers report the reasoning tokens and the service
 * tier the request was billed at.
 */
import assert from 'node:assert/strict';
import { after, beforeEach, test } from 'node:test';
import { verifyLedger } from '../../src/adapters/db/ledger/ledger-checks.ts';
import { GEMINI_THINKING_USAGE } from '../fakes/openai-chat.fake.ts';
import { chatLedger, heldMicro, latestRow, startChatFakes } from '../support/chat-gateway.ts';
import { describeEachMode, type TestGateway } from '../support/gateway.ts';

const fakes = await startChatFakes();
after(() => fakes.close());
const chatConfig = fakes.config as { providers: Record<string, unknown>; routes: Record<string, unknown> };
const gemini = { type: 'openai', baseUrl: fakes.openai.baseUrl, apiKey: fakes.openai.apiKey, timeoutMs: 5000, options: { totalIncludesReasoning: true } };
const config = {
  ...chatConfig,
  providers: { ...chatConfig.providers, gemini },
  routes: { ...chatConfig.routes, 'gemini-3.1-pro': [{ provider: 'gemini', model: 'gemini-3.1-pro-preview' }] },
};

/** gemini-3.1-pro's published prices for prompts up to 200K tokens, micro-USD per million (ai.google.dev/gemini-api/docs/pricing). */
const GEMINI_PRO = { input: 2_000_000, output: 12_000_000 };
/** gpt-5.4's published priority prices (platform.openai.com/docs/pricing, Priority). */
const GPT_54_PRIORITY = { input: 5_000_000, output: 30_000_000 };
const { prompt_tokens: PROMPT, completion_tokens: COMPLETION, total_tokens: TOTAL } = GEMINI_THINKING_USAGE;
const THOUGHTS = TOTAL - PROMPT - COMPLETION;

async function post(gw: TestGateway, key: string, path: string, body: unknown): Promise<{ status: number; text: string }> {
  const res = await fetch(`${gw.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, text: await res.text() };
}

async function assertCharged(gw: TestGateway, userId: string, expected: number): Promise<void> {
  const row = await latestRow(gw, userId);
  assert.equal(Number(row.cost_micro), expected, 'billed at the published price to the micro-USD');
  assert.equal(await heldMicro(gw, userId), 0);
  const lines = (await chatLedger(gw, userId)).filter((l) => l.reference === row.id);
  assert.equal(lines.reduce((sum, l) => sum - l.amount, 0), expected);
  assert.deepEqual(await verifyLedger(gw.gateway.services.database.db), []);
}

/** One usage report per answer: the output billed is completion plus the thoughts. */
const geminiCost = (output: number) => Math.ceil((PROMPT * GEMINI_PRO.input + output * GEMINI_PRO.output) / 1_000_000);

describeEachMode(
  'reasoning reported outside completion_tokens',
  (ctx) => {
    beforeEach(() => fakes.reset());

    for (const stream of [false, true]) {
      test(`Gemini's thoughts in total_tokens are billed as output (${stream ? 'stream' : 'whole answer'})`, async () => {
        const { key, userId } = await ctx.gw.createUser(500);
        fakes.openai.enqueue({ text: 'ok', usage: { input: PROMPT, output: COMPLETION, thoughtsOutsideCompletion: THOUGHTS } });
        const body = { model: 'gemini-3.1-pro', messages: [{ role: 'user', content: 'What is 15% of 240? Think it through carefully before answering.' }], max_tokens: 2000, stream, ...(stream ? { stream_options: { include_usage: true } } : {}) };
        const answer = await post(ctx.gw, key, '/api/v1/chat/completions', body);
        assert.equal(answer.status, 200, answer.text);
        const usageText = stream ? answer.text.split('\n').filter((l) => l.startsWith('data: {') && l.includes('"usage":{')).at(-1)?.slice(6) : answer.text;
        const usage = (JSON.parse(usageText ?? '{}') as { usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number } }).usage;
        assert.deepEqual([usage.prompt_tokens, usage.completion_tokens, usage.total_tokens], [PROMPT, COMPLETION + THOUGHTS, TOTAL], 'the answer reports what was billed');
        const row = await latestRow(ctx.gw, userId);
        assert.equal(Number(row.output_tokens), COMPLETION + THOUGHTS);
        // 20 × 2 + 603 × 12 = 40 + 7236 micro-USD (completion_tokens alone would be 2416).
        await assertCharged(ctx.gw, userId, geminiCost(COMPLETION + THOUGHTS));
      });
    }

    test('a provider that does not say so bills completion_tokens (OpenAI counts reasoning inside it)', async () => {
      const { key, userId } = await ctx.gw.createUser(500);
      fakes.openai.enqueue({ text: 'ok', usage: { input: 20, output: 30 }, rawUsage: { total_tokens: 9999 } });
      const answer = await post(ctx.gw, key, '/api/v1/chat/completions', { model: 'gpt-5.4-mini', messages: [{ role: 'user', content: 'hi' }], max_tokens: 2000 });
      assert.equal(answer.status, 200, answer.text);
      const row = await latestRow(ctx.gw, userId);
      assert.equal(Number(row.output_tokens), 30);
    });

    test('a Responses answer reports the reasoning tokens billed and the default tier', async () => {
      const { key, userId } = await ctx.gw.createUser(500);
      fakes.openai.enqueue({ text: 'ok', usage: { input: PROMPT, output: COMPLETION, thoughtsOutsideCompletion: THOUGHTS } });
      const answer = await post(ctx.gw, key, '/api/v1/responses', { model: 'gemini-3.1-pro', input: 'What is 15% of 240?', max_output_tokens: 2000 });
      assert.equal(answer.status, 200, answer.text);
      const response = JSON.parse(answer.text) as { service_tier?: string; usage: { output_tokens: number; output_tokens_details: { reasoning_tokens: number } } };
      assert.equal(response.usage.output_tokens, COMPLETION + THOUGHTS);
      assert.equal(response.usage.output_tokens_details.reasoning_tokens, THOUGHTS);
      assert.equal(response.service_tier, 'default');
      await assertCharged(ctx.gw, userId, geminiCost(COMPLETION + THOUGHTS));
    });

    for (const stream of [false, true]) {
      test(`a Responses answer served at priority says so, with OpenAI's reasoning count (${stream ? 'stream' : 'whole answer'})`, async () => {
        const { key, userId } = await ctx.gw.createUser(500);
        fakes.openai.enqueue({
          text: 'ok',
          usage: { input: 20, output: 50 },
          rawUsage: { completion_tokens_details: { reasoning_tokens: 32, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 } },
        });
        const answer = await post(ctx.gw, key, '/api/v1/responses', { model: 'gpt-5.4', input: 'hi', max_output_tokens: 200, service_tier: 'priority', stream });
        assert.equal(answer.status, 200, answer.text);
        const completed = stream
          ? (JSON.parse(answer.text.split('\n').filter((l) => l.startsWith('data: ')).at(-1)?.slice(6) ?? '{}') as { response: unknown }).response
          : JSON.parse(answer.text);
        const response = completed as { service_tier?: string; usage: { output_tokens: number; output_tokens_details: { reasoning_tokens: number } } };
        assert.equal(response.service_tier, 'priority');
        assert.equal(response.usage.output_tokens_details.reasoning_tokens, 32);
        // 20 × 5 + 50 × 30 = 100 + 1500 micro-USD.
        await assertCharged(ctx.gw, userId, Math.ceil((20 * GPT_54_PRIORITY.input + 50 * GPT_54_PRIORITY.output) / 1_000_000));
      });
    }
  },
  { configFile: config },
);
