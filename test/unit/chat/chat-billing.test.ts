import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assertPriceOptionsBillable, type ChatPrices, costMicro, holdMicro } from '../../../src/domain/chat/chat-billing.ts';
import { boundCharge, boundChatUsage } from '../../../src/domain/chat/usage-bounds.ts';
import { Catalog } from '../../../src/domain/catalog/catalog.ts';
import { isAppError } from '../../../src/domain/errors.ts';

// GPT-5.4 mini: USD 0.75 / 4.50 / 0.075 per 1M tokens; a cache write costs an input token.
const prices: ChatPrices = {
  inputMicroPerMillion: 750_000,
  outputMicroPerMillion: 4_500_000,
  cachedInputMicroPerMillion: 75_000,
  cacheWriteMicroPerMillion: 750_000,
  cacheWrite1hMicroPerMillion: 750_000,
};
// Claude Sonnet 4.6 as Anthropic prices it: USD 3 / 15 / 0.30; writes 3.75 (5 minutes) and 6 (1 hour); USD 10 per 1,000 searches.
const sonnet: ChatPrices = {
  inputMicroPerMillion: 3_000_000,
  outputMicroPerMillion: 15_000_000,
  cachedInputMicroPerMillion: 300_000,
  cacheWriteMicroPerMillion: 3_750_000,
  cacheWrite1hMicroPerMillion: 6_000_000,
  webSearchMicroPerCall: 10_000,
};

describe('chat billing', () => {
  test('cost: uncached input, cache reads at the cached price, output; one rounding up per request', () => {
    // (1034 × 750000 + 200 × 75000 + 567 × 4500000) / 1e6 = (775500000 + 15000000 + 2551500000) / 1e6 = 3342.0
    assert.equal(costMicro(prices, { inputTokens: 1234, cachedInputTokens: 200, cacheCreationTokens: 0, outputTokens: 567 }), 3342);
    // 1 token of input: 0.75 micro-USD → 1; never zero for non-zero usage.
    assert.equal(costMicro(prices, { inputTokens: 1, cachedInputTokens: 0, cacheCreationTokens: 0, outputTokens: 0 }), 1);
    // Three tokens at 0.75 = 2.25 → 3, not 1 + 1 + 1 rounded per token.
    assert.equal(costMicro(prices, { inputTokens: 3, cachedInputTokens: 0, cacheCreationTokens: 0, outputTokens: 0 }), 3);
    assert.equal(costMicro(prices, { inputTokens: 0, cachedInputTokens: 0, cacheCreationTokens: 0, outputTokens: 0 }), 0);
  });

  test('cache writes are part of the input: at the input price where the vendor charges no surcharge', () => {
    const withWrites = costMicro(prices, { inputTokens: 1000, cachedInputTokens: 0, cacheCreationTokens: 400, outputTokens: 0 });
    assert.equal(withWrites, costMicro(prices, { inputTokens: 1000, cachedInputTokens: 0, cacheCreationTokens: 0, outputTokens: 0 }));
    assert.equal(withWrites, 750);
  });

  test('exact for large counts (no floating point on the way)', () => {
    const big = { inputMicroPerMillion: 15_000_000, outputMicroPerMillion: 75_000_000, cachedInputMicroPerMillion: 1_500_000, cacheWriteMicroPerMillion: 15_000_000, cacheWrite1hMicroPerMillion: 15_000_000 };
    // 10^9 output tokens at USD 75 per 1M = USD 75,000 exactly.
    assert.equal(costMicro(big, { inputTokens: 0, cachedInputTokens: 0, cacheCreationTokens: 0, outputTokens: 1_000_000_000 }), 75_000_000_000);
    assert.equal(holdMicro(big, 999_999, 1), Math.ceil((999_999 * 15 + 75) / 1)); // 15 micro per token in, 75 out
  });

  test('the hold bounds the cost of any answer within the prompt estimate and max_tokens', () => {
    const hold = holdMicro(prices, 5000, 700);
    for (const usage of [
      { inputTokens: 5000, cachedInputTokens: 0, cacheCreationTokens: 0, outputTokens: 700 },
      { inputTokens: 5000, cachedInputTokens: 5000, cacheCreationTokens: 0, outputTokens: 700 },
      { inputTokens: 12, cachedInputTokens: 0, cacheCreationTokens: 12, outputTokens: 1 },
    ]) assert.ok(costMicro(prices, usage) <= hold);
    assert.equal(hold, Math.ceil((5000 * 750_000 + 700 * 4_500_000) / 1e6));
  });

  test('estimated usage is capped silently by the hold\'s assumptions; reported usage above them is capped and named', () => {
    const bounds = { promptTokens: 100, maxOutputTokens: 50, webSearches: 0, outputSeen: 0 };
    const estimated = boundChatUsage({ inputTokens: 400, outputTokens: 900, cachedInputTokens: 0, cacheCreationTokens: 0, estimated: true }, bounds);
    assert.deepEqual(estimated, { usage: { inputTokens: 100, outputTokens: 50, cachedInputTokens: 0, cacheCreationTokens: 0, estimated: true }, anomalies: [] });
    const reported = boundChatUsage({ inputTokens: 400, outputTokens: 900, cachedInputTokens: 10, cacheCreationTokens: 0 }, bounds);
    assert.deepEqual(reported.usage, { inputTokens: 100, outputTokens: 50, cachedInputTokens: 10, cacheCreationTokens: 0 });
    assert.deepEqual(reported.anomalies.map((a) => [a.field, a.kind, a.reported, a.billed]), [
      ['inputTokens', 'above_bound', '400', 100],
      ['outputTokens', 'above_bound', '900', 50],
    ]);
  });

  test('counts that are not non-negative integers: fractions up, negatives to zero, non-numbers to our estimate', () => {
    const bounds = { promptTokens: 100, maxOutputTokens: 50, webSearches: 1, outputSeen: 7 };
    const bad = { inputTokens: 20.5, outputTokens: Number.NaN, cachedInputTokens: -3, cacheCreationTokens: 30, cacheCreation1hTokens: 40, webSearchRequests: 3 };
    const { usage, anomalies } = boundChatUsage(bad, bounds);
    assert.deepEqual(usage, { inputTokens: 21, outputTokens: 7, cachedInputTokens: 0, cacheCreationTokens: 21, cacheCreation1hTokens: 21, webSearchRequests: 1, estimated: true });
    assert.deepEqual(anomalies.map((a) => [a.field, a.kind]), [
      ['inputTokens', 'fractional'],
      ['outputTokens', 'not_a_count'],
      ['cachedInputTokens', 'negative'],
      ['cacheCreationTokens', 'part_above_whole'],
      ['cacheCreation1hTokens', 'part_above_whole'],
      ['webSearchRequests', 'above_bound'],
    ]);
    // Whatever the report, the cost of the bounded usage can be computed, and is charged within the hold.
    assert.ok(costMicro(prices, usage) >= 0);
    const named: ReturnType<typeof boundChatUsage>['anomalies'] = [];
    assert.equal(boundCharge(5000, 1200, named), 1200);
    assert.deepEqual(named.map((a) => a.kind), ['cost_above_hold']);
  });

  test('Anthropic cache writes by lifetime: 5-minute writes at 1.25×, one-hour writes at 2× the input price', () => {
    // 1000 prompt tokens: 100 read, 300 written (200 of them for an hour), 600 plain; 50 out.
    // 600 × 3 + 100 × 0.30 + 100 × 3.75 + 200 × 6 + 50 × 15 = 1800 + 30 + 375 + 1200 + 750 = 4155 micro-USD.
    assert.equal(costMicro(sonnet, { inputTokens: 1000, cachedInputTokens: 100, cacheCreationTokens: 300, cacheCreation1hTokens: 200, outputTokens: 50 }), 4155);
    // Without the split every write is a 5-minute one.
    assert.equal(costMicro(sonnet, { inputTokens: 1000, cachedInputTokens: 100, cacheCreationTokens: 300, outputTokens: 50 }), 1800 + 30 + 1125 + 750);
  });

  test('web searches at the per-search price, joined to the tokens in one rounding', () => {
    // 3 tokens in at 3 micro each = 9, plus 2 searches at 10,000 = 20,009.
    assert.equal(costMicro(sonnet, { inputTokens: 3, cachedInputTokens: 0, cacheCreationTokens: 0, outputTokens: 0, webSearchRequests: 2 }), 20_009);
  });

  test('the tier the upstream reports chooses the token prices; priority only where published', () => {
    const gpt = Catalog.build().chat('gpt-5.5');
    assert.ok(gpt?.priority);
    const usage = { inputTokens: 1000, cachedInputTokens: 200, cacheCreationTokens: 0, outputTokens: 100 };
    // Priority: 800 × 12.50 + 200 × 1.25 + 100 × 75 = 10000 + 250 + 7500.
    assert.equal(costMicro(gpt, { ...usage, serviceTier: 'priority' }), 17_750);
    // Standard: 800 × 5 + 200 × 0.50 + 100 × 30 = 4000 + 100 + 3000.
    assert.equal(costMicro(gpt, { ...usage, serviceTier: 'default' }), 7_100);
    assert.equal(costMicro(gpt, usage), 7_100);
    // Anthropic's priority capacity has no per-token price: the listed prices apply.
    assert.equal(costMicro(sonnet, { ...usage, serviceTier: 'priority' }), costMicro(sonnet, usage));
  });

  test('the hold covers the worst case of the options asked for', () => {
    const plain = holdMicro(sonnet, 1000, 100);
    assert.equal(plain, 1000 * 3 + 100 * 15);
    // With 5-minute marks every prompt token may be a write at 3.75; with a one-hour mark at 6.
    assert.equal(holdMicro(sonnet, 1000, 100, { cacheWrites: '5m' }), 1000 * 3.75 + 1500);
    assert.equal(holdMicro(sonnet, 1000, 100, { cacheWrites: '1h' }), 1000 * 6 + 1500);
    assert.equal(holdMicro(sonnet, 1000, 100, { webSearches: { max: 5, param: 'tools[0]' } }), plain + 50_000);
    const gpt = Catalog.build().chat('gpt-5.5');
    assert.ok(gpt);
    assert.equal(holdMicro(gpt, 1000, 100, { priority: { param: 'service_tier' } }), 1000 * 12.5 + 100 * 75);
    for (const usage of [
      { inputTokens: 1000, cachedInputTokens: 0, cacheCreationTokens: 1000, cacheCreation1hTokens: 1000, outputTokens: 100 },
      { inputTokens: 1000, cachedInputTokens: 0, cacheCreationTokens: 600, cacheCreation1hTokens: 100, outputTokens: 100, webSearchRequests: 5 },
    ]) assert.ok(costMicro(sonnet, usage) <= holdMicro(sonnet, 1000, 100, { cacheWrites: '1h', webSearches: { max: 5, param: 'tools[0]' } }));
  });

  test('an option without a published price is refused, naming the field', () => {
    const mini = Catalog.build().chat('deepseek-v4-flash');
    assert.ok(mini);
    assert.throws(() => assertPriceOptionsBillable('deepseek-v4-flash', mini, { priority: { param: 'service_tier' } }), (e: unknown) => isAppError(e) && e.param === 'service_tier' && e.status === 400);
    assert.throws(() => assertPriceOptionsBillable('deepseek-v4-flash', mini, { webSearches: { max: 1, param: 'tools[2]' } }), (e: unknown) => isAppError(e) && e.param === 'tools[2]');
    assert.doesNotThrow(() => assertPriceOptionsBillable('claude-sonnet-4-6', sonnet, { cacheWrites: '1h', webSearches: { max: 1, param: 'tools[0]' } }));
  });
});
