/**
 * What a chat request costs (decision 11), in integer micro-USD. Prices are micro-USD per million
 * tokens, so a charge is Σ tokens × price / 1,000,000: the sum is computed exactly (BigInt, no
 * intermediate rounding) and divided once per request, rounded up to the whole micro-USD. The hold
 * uses the same formula with the most the request can use, so it is never below the charge of an
 * answer that stays within the prompt estimate and max_tokens.
 */
import type { ChatUsage } from './chat-response.types.ts';

export interface TokenPrices {
  inputMicroPerMillion: number;
  outputMicroPerMillion: number;
  cachedInputMicroPerMillion: number;
}

const MILLION = 1_000_000n;

function ceilDiv(numerator: bigint, denominator: bigint): number {
  return Number((numerator + denominator - 1n) / denominator);
}

/** The reservation: every prompt token at the input price plus every allowed output token. */
export function holdMicro(prices: TokenPrices, promptTokens: number, maxOutputTokens: number): number {
  const total = BigInt(promptTokens) * BigInt(prices.inputMicroPerMillion) + BigInt(maxOutputTokens) * BigInt(prices.outputMicroPerMillion);
  return ceilDiv(total, MILLION);
}

/**
 * The charge for reported usage. `inputTokens` includes the cached reads and the cache writes: cache
 * reads are billed at the cached-input price, everything else of the prompt (cache writes included)
 * at the input price, output at the output price.
 */
export function costMicro(prices: TokenPrices, usage: ChatUsage): number {
  const cached = BigInt(Math.max(0, usage.cachedInputTokens));
  const uncached = BigInt(Math.max(0, usage.inputTokens - usage.cachedInputTokens));
  const total =
    uncached * BigInt(prices.inputMicroPerMillion) +
    cached * BigInt(prices.cachedInputMicroPerMillion) +
    BigInt(Math.max(0, usage.outputTokens)) * BigInt(prices.outputMicroPerMillion);
  return ceilDiv(total, MILLION);
}

/**
 * The usage to bill. Reported counts are billed as reported. Estimated ones (an upstream that
 * reported nothing: a cut stream, a departed client) are upper bounds that can overshoot what the
 * request could have used, so they are capped by what the hold assumed: the prompt estimate and
 * max_tokens (no upstream produces more output than max_tokens).
 */
export function billableUsage(usage: ChatUsage, bounds: { promptTokens: number; maxOutputTokens: number }): ChatUsage {
  if (!usage.estimated) return usage;
  const inputTokens = Math.min(usage.inputTokens, bounds.promptTokens);
  return {
    inputTokens,
    outputTokens: Math.min(usage.outputTokens, bounds.maxOutputTokens),
    cachedInputTokens: Math.min(usage.cachedInputTokens, inputTokens),
    cacheCreationTokens: Math.min(usage.cacheCreationTokens, inputTokens),
    estimated: true,
  };
}
