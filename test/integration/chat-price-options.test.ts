/**
 * Issue 18, item 7: every request option that changes the upstream price is either billed exactly
 * (the usage report times the published price, to the micro-USD) or refused with a 400 naming it
 * before any hold or upstream call, on both protocols, streaming and not, a cut stream included; the
 * hold covers the worst case of what is allowed; translation between protocols drops no option that
 * changes the answer or the price. Against the strict fakes (the vendors' published request types),
 * on whole gateways in both modes; the books verify after each test.
 */
import assert from 'node:assert/strict';
import { after, beforeEach, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { verifyLedger } from '../../src/adapters/db/ledger/ledger-checks.ts';
import {
  anthropicClient,
  assertSettled,
  balanceMicro,
  chatLedger,
  expectedCost,
  heldMicro,
  latestRow,
  openAiClient,
  prices,
  settledRow,
  startChatFakes,
  upstreamBody,
} from '../support/chat-gateway.ts';
import { describeEachMode, type TestGateway } from '../support/gateway.ts';

const fakes = await startChatFakes();
after(() => fakes.close());

type Refusal = { status: number; param?: string; message: string };

interface MoneyState {
  balance: number;
  entries: number;
}

/** The user's money once nothing of theirs is running (a whole answer settles just after it is sent). */
async function moneyOf(gw: TestGateway, userId: string): Promise<MoneyState> {
  const db = gw.gateway.services.database.db;
  for (let i = 0; i < 250 && (await db.selectFrom('chat_holds').select('id').where('user_id', '=', userId).executeTakeFirst()); i++) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return { balance: await balanceMicro(gw, userId), entries: (await chatLedger(gw, userId)).length };
}

/** A refusal changed nothing: no upstream call, no charge, no hold left, the books balanced. */
async function assertNothingMoved(gw: TestGateway, userId: string, before: MoneyState): Promise<void> {
  assert.equal(fakes.openai.requests.length + fakes.anthropic.requests.length, 0, 'no upstream call');
  assert.deepEqual(await moneyOf(gw, userId), before);
  assert.equal(await heldMicro(gw, userId), 0);
  assert.deepEqual(await verifyLedger(gw.gateway.services.database.db), []);
}

/** The refusal names the field: as `param` (OpenAI's shape) or in the message (Anthropic's has no param). */
function assertNames(refused: Refusal, field: string): void {
  if (refused.param !== undefined) assert.equal(refused.param, field);
  else assert.ok(refused.message.includes(field), `${refused.message} names ${field}`);
}

async function refusal(call: Promise<unknown>): Promise<Refusal> {
  try {
    await call;
  } catch (error) {
    if (error instanceof OpenAI.APIError || error instanceof Anthropic.APIError) {
      const body = error.error as { error?: { param?: string; message?: string }; param?: string; message?: string } | undefined;
      const inner = body?.error ?? body;
      return { status: error.status ?? 0, message: inner?.message ?? error.message, ...(inner?.param ? { param: inner.param } : {}) };
    }
    throw error;
  }
  assert.fail('the request was accepted');
}

describeEachMode(
  'chat price-changing options',
  (ctx) => {
    beforeEach(() => fakes.reset());

    test('Anthropic cache writes by lifetime: one-hour writes at 2x, five-minute at 1.25x, streaming and not', async () => {
      const { key, userId } = await ctx.gw.createUser(100);
      const client = anthropicClient(ctx.gw, key);
      const p = await prices(ctx.gw, key, 'claude-sonnet-4-6');
      assert.deepEqual([p.cacheWrite, p.cacheWrite1h], [3_750_000n, 6_000_000n], 'published: 1.25x and 2x the input price');
      const system: Anthropic.TextBlockParam[] = [
        { type: 'text', text: 'Long instructions.', cache_control: { type: 'ephemeral', ttl: '1h' } },
        { type: 'text', text: 'Shorter ones.', cache_control: { type: 'ephemeral' } },
      ];
      fakes.anthropic.enqueue(
        { text: 'Cached.', usage: { input: 20, output: 9, cached: 0, cacheCreation: 700, cacheCreation1h: 500 } },
        { text: 'Cached again.', usage: { input: 20, output: 9, cached: 0, cacheCreation: 700, cacheCreation1h: 500 } },
      );
      const message = await client.messages.create({ model: 'claude-sonnet-4-6', max_tokens: 64, system, messages: [{ role: 'user', content: 'Hi' }] });
      assert.deepEqual(upstreamBody<{ system: unknown }>(fakes.anthropic, 0).system, system, 'the marks reach the upstream as sent');
      // 20 plain + 200 five-minute writes + 500 one-hour writes, 9 out.
      const cost = expectedCost(p, { input: 720, output: 9, writes: 700, writes1h: 500 });
      assert.equal(cost, Math.ceil((20 * 3 + 200 * 3.75 + 500 * 6 + 9 * 15) / 1));
      await assertSettled(ctx.gw, userId, message.id, cost);

      const stream = client.messages.stream({ model: 'claude-sonnet-4-6', max_tokens: 64, system, messages: [{ role: 'user', content: 'Hi' }] });
      const final = await stream.finalMessage();
      await assertSettled(ctx.gw, userId, final.id, cost);
      assert.equal(await balanceMicro(ctx.gw, userId), 1_000_000 - 2 * cost);
    });

    test('Anthropic web search: USD 10 per 1,000 searches from server_tool_use, streaming and not; max_uses is required', async () => {
      const { key, userId } = await ctx.gw.createUser(100);
      const client = anthropicClient(ctx.gw, key);
      const p = await prices(ctx.gw, key, 'claude-sonnet-4-6');
      assert.equal(p.webSearchPer1k, 10_000_000n);
      const tools: Anthropic.Messages.ToolUnion[] = [{ type: 'web_search_20250305', name: 'web_search', max_uses: 3 }];
      fakes.anthropic.enqueue({ text: 'Found it.', usage: { input: 900, output: 30, webSearches: 2 } }, { text: 'Found it.', usage: { input: 900, output: 30, webSearches: 3 } });
      const message = await client.messages.create({ model: 'claude-sonnet-4-6', max_tokens: 100, tools, messages: [{ role: 'user', content: 'News?' }] });
      assert.deepEqual(message.content, [{ type: 'text', text: 'Found it.' }], 'server tool blocks are not part of our answer');
      await assertSettled(ctx.gw, userId, message.id, expectedCost(p, { input: 900, output: 30, searches: 2 }));
      assert.equal(expectedCost(p, { input: 900, output: 30, searches: 2 }), 900 * 3 + 30 * 15 + 20_000);

      const final = await client.messages.stream({ model: 'claude-sonnet-4-6', max_tokens: 100, tools, messages: [{ role: 'user', content: 'News?' }] }).finalMessage();
      await assertSettled(ctx.gw, userId, final.id, expectedCost(p, { input: 900, output: 30, searches: 3 }));

      fakes.reset();
      const before = await moneyOf(ctx.gw, userId);
      const missing = await refusal(client.messages.create({ model: 'claude-sonnet-4-6', max_tokens: 100, tools: [{ type: 'web_search_20250305', name: 'web_search' }], messages: [{ role: 'user', content: 'News?' }] }));
      assert.equal(missing.status, 400);
      assert.match(missing.message, /tools\[0\]\.max_uses is required/);
      await assertNothingMoved(ctx.gw, userId, before);
    });

    test('a stream cut after two searches bills the searches it showed and the usage observed', async () => {
      const { key, userId } = await ctx.gw.createUser(100);
      const p = await prices(ctx.gw, key, 'claude-sonnet-4-6');
      // message_start, two server_tool_use blocks with their results (2 frames each: start and stop), then the cut.
      fakes.anthropic.enqueue({ text: 'A long answer that never arrives in full.', usage: { input: 400, output: 50, webSearches: 2 }, cutAfterChunks: 11 });
      const stream = anthropicClient(ctx.gw, key).messages.stream({
        model: 'claude-sonnet-4-6',
        max_tokens: 100,
        tools: [{ type: 'web_search_20250305', name: 'web_search', max_uses: 5 }],
        messages: [{ role: 'user', content: 'News?' }],
      });
      await assert.rejects(stream.finalMessage(), Anthropic.APIError);
      const row = await latestRow(ctx.gw, userId);
      assert.equal(row.status, 'cut');
      assert.equal(row.input_tokens, 400, 'the input message_start reported');
      // The output is the estimate of what arrived; the searches are the two that were shown.
      await assertSettled(ctx.gw, userId, row.id, expectedCost(p, { input: row.input_tokens, output: row.output_tokens, searches: 2 }));
    });

    test('OpenAI priority processing: billed at the published priority prices from the tier the upstream reports', async () => {
      const { key, userId } = await ctx.gw.createUser(100);
      const client = openAiClient(ctx.gw, key);
      const p = await prices(ctx.gw, key, 'gpt-5.4-mini');
      assert.deepEqual(p.priority, { input: 1_500_000n, output: 9_000_000n, cached: 150_000n }, 'OpenAI priority prices are published');
      fakes.openai.enqueue({ text: 'Fast.', usage: { input: 1000, output: 200, cached: 400 } }, { text: 'Fast.', usage: { input: 1000, output: 200, cached: 400 } });
      const completion = await client.chat.completions.create({ model: 'gpt-5.4-mini', service_tier: 'priority', messages: [{ role: 'user', content: 'Quick' }] });
      assert.equal(upstreamBody<{ service_tier: string }>(fakes.openai, 0).service_tier, 'priority');
      const cost = expectedCost(p, { input: 1000, output: 200, cached: 400, tier: 'priority' });
      assert.equal(cost, 600 * 1.5 + 400 * 0.15 + 200 * 9);
      await assertSettled(ctx.gw, userId, completion.id, cost);

      const stream = await client.chat.completions.create({ model: 'gpt-5.4-mini', service_tier: 'fast', messages: [{ role: 'user', content: 'Quick' }], stream: true });
      let id = '';
      for await (const chunk of stream) id = chunk.id;
      await assertSettled(ctx.gw, userId, id, cost);

      // The upstream served the standard tier after all: billed at the standard prices.
      fakes.openai.enqueue({ text: 'Slow.', usage: { input: 1000, output: 200, cached: 400, serviceTier: 'default' } });
      const standard = await client.chat.completions.create({ model: 'gpt-5.4-mini', service_tier: 'priority', messages: [{ role: 'user', content: 'Quick' }] });
      await assertSettled(ctx.gw, userId, standard.id, expectedCost(p, { input: 1000, output: 200, cached: 400 }));
    });

    test('a cut priority stream is billed at the priority prices for what was observed', async () => {
      const { key, userId } = await ctx.gw.createUser(100);
      const p = await prices(ctx.gw, key, 'gpt-5.4-mini');
      fakes.openai.enqueue({ text: 'one two three four five six seven eight', cutAfterChunks: 3 });
      const stream = await openAiClient(ctx.gw, key).chat.completions.create({ model: 'gpt-5.4-mini', service_tier: 'priority', messages: [{ role: 'user', content: 'Count' }], stream: true });
      await assert.rejects(async () => {
        for await (const _chunk of stream) {
          // read until the error
        }
      });
      const row = await latestRow(ctx.gw, userId);
      assert.equal(row.status, 'cut');
      assert.equal(row.usage_estimated, 1);
      await assertSettled(ctx.gw, userId, row.id, expectedCost(p, { input: row.input_tokens, output: row.output_tokens, tier: 'priority' }));
    });

    test('the hold covers the worst case: one-hour writes, searches and priority need more balance up front', async () => {
      // 1 cent: enough for the standard hold of a short request, not for its worst case with the options.
      const { key, userId } = await ctx.gw.createUser(1);
      const anthropic = anthropicClient(ctx.gw, key);
      fakes.anthropic.setDefault({ text: 'ok', usage: { input: 10, output: 2 } });
      const plain = { model: 'claude-sonnet-4-6', max_tokens: 256, messages: [{ role: 'user' as const, content: 'Hi' }] };
      await anthropic.messages.create(plain);
      const before = await moneyOf(ctx.gw, userId);
      fakes.reset();
      const oneHour = await refusal(anthropic.messages.create({ ...plain, system: [{ type: 'text', text: 'S', cache_control: { type: 'ephemeral', ttl: '1h' } }] }));
      assert.equal(oneHour.status, 402);
      const searches = await refusal(anthropic.messages.create({ ...plain, tools: [{ type: 'web_search_20250305', name: 'web_search', max_uses: 1 }] }));
      assert.equal(searches.status, 402);
      const openai = openAiClient(ctx.gw, key);
      fakes.openai.setDefault({ text: 'ok', usage: { input: 10, output: 2 } });
      const gpt = { model: 'gpt-5.4-mini', max_tokens: 1500, messages: [{ role: 'user' as const, content: 'Hi' }] };
      const priority = await refusal(openai.chat.completions.create({ ...gpt, service_tier: 'priority' }));
      assert.equal(priority.status, 402);
      await assertNothingMoved(ctx.gw, userId, before);
      await openai.chat.completions.create(gpt);
      fakes.openai.setDefault({});
      fakes.anthropic.setDefault({});
    });

    test('options without a published price are refused with a 400 naming them, before anything moves', async () => {
      const { key, userId } = await ctx.gw.createUser(100);
      const before = await moneyOf(ctx.gw, userId);
      const openai = openAiClient(ctx.gw, key);
      const anthropic = anthropicClient(ctx.gw, key);
      const oa = { model: 'gpt-5.4-mini', messages: [{ role: 'user' as const, content: 'Hi' }] };
      const an = { model: 'claude-sonnet-4-6', max_tokens: 64, messages: [{ role: 'user' as const, content: 'Hi' }] };
      const cases: Array<[string, () => Promise<unknown>]> = [
        ['web_search_options', () => openai.chat.completions.create({ ...oa, web_search_options: {} })],
        ['service_tier', () => openai.chat.completions.create({ ...oa, service_tier: 'flex' })],
        ['service_tier', () => openai.chat.completions.create({ ...oa, model: 'claude-haiku-4-5', service_tier: 'priority' })],
        ['audio', () => openai.chat.completions.create({ ...oa, audio: { voice: 'alloy', format: 'mp3' }, modalities: ['text', 'audio'] })],
        ['prediction', () => openai.chat.completions.create({ ...oa, prediction: { type: 'content', content: 'x' } })],
        ['messages[0].content[0].type', () => openai.chat.completions.create({ ...oa, messages: [{ role: 'user', content: [{ type: 'input_audio', input_audio: { data: 'AAA=', format: 'wav' } }] }] })],
        ['extra_body_field', () => openai.chat.completions.create({ ...oa, extra_body_field: 1 } as OpenAI.ChatCompletionCreateParamsNonStreaming)],
        ['speed', () => anthropic.messages.create({ ...an, speed: 'fast' })],
        ['inference_geo', () => anthropic.messages.create({ ...an, inference_geo: 'us' })],
        ['container', () => anthropic.messages.create({ ...an, container: 'container_1' })],
        ['tools[0]', () => anthropic.messages.create({ ...an, tools: [{ type: 'code_execution_20250825', name: 'code_execution' }] })],
        ['mcp_servers', () => anthropic.messages.create({ ...an, mcp_servers: [] } as Anthropic.MessageCreateParamsNonStreaming)],
      ];
      for (const [field, call] of cases) {
        const refused = await refusal(call());
        assert.equal(refused.status, 400, field);
        assertNames(refused, field);
      }
      await assertNothingMoved(ctx.gw, userId, before);
    });

    test('across protocols an option that changes the answer is refused, naming it; hints are dropped', async () => {
      const { key, userId } = await ctx.gw.createUser(100);
      const before = await moneyOf(ctx.gw, userId);
      // claude-sonnet-4-6 goes to the Anthropic upstream, claude-haiku-4-5 to the OpenAI one.
      const seeded = await refusal(openAiClient(ctx.gw, key).chat.completions.create({ model: 'claude-sonnet-4-6', seed: 4, messages: [{ role: 'user', content: 'Hi' }] }));
      assert.equal(seeded.status, 400);
      assertNames(seeded, 'seed');
      const priority = await refusal(openAiClient(ctx.gw, key).chat.completions.create({ model: 'claude-sonnet-4-6', messages: [{ role: 'user', content: 'Hi' }], reasoning_effort: 'high' }));
      assert.equal(priority.status, 400);
      assertNames(priority, 'reasoning_effort');
      const topK = await refusal(anthropicClient(ctx.gw, key).messages.create({ model: 'claude-haiku-4-5', max_tokens: 32, top_k: 5, messages: [{ role: 'user', content: 'Hi' }] } as Anthropic.MessageCreateParamsNonStreaming));
      assert.equal(topK.status, 400);
      assertNames(topK, 'top_k');
      const thinking = await refusal(anthropicClient(ctx.gw, key).messages.create({ model: 'claude-haiku-4-5', max_tokens: 2048, thinking: { type: 'enabled', budget_tokens: 1024 }, messages: [{ role: 'user', content: 'Hi' }] }));
      assert.equal(thinking.status, 400);
      assertNames(thinking, 'thinking');
      await assertNothingMoved(ctx.gw, userId, before);

      // Hints and the standard tier: left out toward the other protocol, the answer unchanged.
      fakes.anthropic.enqueue({ text: 'Hi.', usage: { input: 12, output: 3 } });
      const completion = await openAiClient(ctx.gw, key).chat.completions.create({
        model: 'claude-sonnet-4-6', store: true, metadata: { run: 'x' }, prompt_cache_key: 'k', service_tier: 'default', messages: [{ role: 'user', content: 'Hi' }],
      });
      const sent = upstreamBody<Record<string, unknown>>(fakes.anthropic, 0);
      for (const field of ['store', 'metadata', 'prompt_cache_key', 'service_tier']) assert.equal(sent[field], undefined, field);
      await assertSettled(ctx.gw, userId, completion.id, expectedCost(await prices(ctx.gw, key, 'claude-sonnet-4-6'), { input: 12, output: 3 }));
      fakes.openai.enqueue({ text: 'Hi.', usage: { input: 12, output: 3 } });
      const message = await anthropicClient(ctx.gw, key).messages.create({
        model: 'claude-haiku-4-5', max_tokens: 32, service_tier: 'standard_only', system: [{ type: 'text', text: 'S', cache_control: { type: 'ephemeral', ttl: '1h' } }], messages: [{ role: 'user', content: 'Hi' }],
      });
      const toOpenAi = upstreamBody<Record<string, unknown>>(fakes.openai, 0);
      assert.equal(toOpenAi.service_tier, undefined);
      assert.equal(JSON.stringify(toOpenAi).includes('cache_control'), false);
      const row = await settledRow(ctx.gw, message.id);
      await assertSettled(ctx.gw, userId, row.id, expectedCost(await prices(ctx.gw, key, 'claude-haiku-4-5'), { input: 12, output: 3 }));
    });
  },
  { configFile: fakes.config },
);
