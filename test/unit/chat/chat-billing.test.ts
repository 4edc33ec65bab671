import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { billableUsage, costMicro, holdMicro } from '../../../src/domain/chat/chat-billing.ts';

// GPT-5.4 mini: USD 0.75 / 4.50 / 0.075 per 1M tokens.
const prices = { inputMicroPerMillion: 750_000, outputMicroPerMillion: 4_500_000, cachedInputMicroPerMillion: 75_000 };

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

  test('cache writes are part of the input and billed at the input price', () => {
    const withWrites = costMicro(prices, { inputTokens: 1000, cachedInputTokens: 0, cacheCreationTokens: 400, outputTokens: 0 });
    assert.equal(withWrites, costMicro(prices, { inputTokens: 1000, cachedInputTokens: 0, cacheCreationTokens: 0, outputTokens: 0 }));
    assert.equal(withWrites, 750);
  });

  test('exact for large counts (no floating point on the way)', () => {
    const big = { inputMicroPerMillion: 15_000_000, outputMicroPerMillion: 75_000_000, cachedInputMicroPerMillion: 1_500_000 };
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

  test('estimated usage is capped by the hold\'s assumptions; reported usage is billed as reported', () => {
    const bounds = { promptTokens: 100, maxOutputTokens: 50 };
    assert.deepEqual(billableUsage({ inputTokens: 400, outputTokens: 900, cachedInputTokens: 0, cacheCreationTokens: 0, estimated: true }, bounds), {
      inputTokens: 100,
      outputTokens: 50,
      cachedInputTokens: 0,
      cacheCreationTokens: 0,
      estimated: true,
    });
    const reported = { inputTokens: 400, outputTokens: 900, cachedInputTokens: 10, cacheCreationTokens: 0 };
    assert.equal(billableUsage(reported, bounds), reported);
  });
});
