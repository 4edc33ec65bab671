/**
 * What a chat request costs (decision 11), in integer micro-USD. Prices are micro-USD per million
 * tokens, so a charge is Σ tokens × price / 1,000,000: the sum is computed exactly (BigInt, no
 * intermediate rounding) and divided once per request, rounded up to the whole micro-USD. Per-use
 * fees (web searches) are whole micro-USD and join the same sum. The hold uses the same prices with
 * the most the request can use, so it is never below the charge of an answer that stays within the
 * prompt estimate, max_tokens and the options it asked for.
 */
import { invalidInput } from '../errors.ts';
import type { ChatPriceOptions } from './chat-request.types.ts';
import type { ChatUsage } from './chat-response.types.ts';

export interface TokenPrices {
  inputMicroPerMillion: number;
  outputMicroPerMillion: number;
  cachedInputMicroPerMillion: number;
}

/** A chat model's published prices (the catalog's `ChatModelDefinition` carries them). */
export interface ChatPrices extends TokenPrices {
  /** Cache writes with the default (5-minute) lifetime; the input price where the vendor charges none. */
  cacheWriteMicroPerMillion: number;
  /** Cache writes with a one-hour lifetime. */
  cacheWrite1hMicroPerMillion: number;
  /** The cache-mark lifetimes with a published write price; absent: both. */
  cacheWriteLifetimes?: ReadonlyArray<'5m' | '1h'>;
  /** One server-side web search; absent when the model's routes offer none we can bill. */
  webSearchMicroPerCall?: number;
  /** Token prices of priority processing; absent when it is not offered. */
  priority?: TokenPrices;
  /** Prices of long prompts; absent when the vendor prices every prompt the same. */
  longContext?: LongContextTier;
}

/**
 * A long-context tier: when the prompt (every input token, cache reads and writes included, as
 * OpenAI and Google count it) has more than `aboveTokens` tokens, the whole request is billed at
 * `prices` (input, cached input and output; a cache write costs a tier input token). Without
 * `prices` the vendor's tier is not published in the catalog, and a request that could cross the
 * threshold is refused before the hold.
 */
export interface LongContextTier {
  aboveTokens: number;
  prices?: TokenPrices;
}

const MILLION = 1_000_000n;

function ceilDiv(numerator: bigint, denominator: bigint): number {
  return Number((numerator + denominator - 1n) / denominator);
}

/** The tier a usage report says served the request; only `priority` has prices of its own. */
function tokenPrices(prices: ChatPrices, serviceTier: string | undefined): TokenPrices {
  return serviceTier === 'priority' && prices.priority ? prices.priority : prices;
}

/**
 * The tier the usage is billed at, as the client's answer reports it: `priority` only where the
 * model has priority prices (a vendor's `priority` on a model without them is billed at the listed
 * prices), else `default`.
 */
export function billedServiceTier(prices: ChatPrices, usage: ChatUsage): ChatUsage {
  const priority = tokenPrices(prices, usage.serviceTier) !== prices && longTier(prices, usage.inputTokens) === undefined;
  return { ...usage, serviceTier: priority ? 'priority' : 'default' };
}

/** The long-context tier of a prompt of `promptTokens`, when it is above the threshold. */
function longTier(prices: ChatPrices, promptTokens: number): LongContextTier | undefined {
  const tier = prices.longContext;
  return tier !== undefined && promptTokens > tier.aboveTokens ? tier : undefined;
}

/**
 * The most one prompt token can cost under the options asked for: a cache write may cost more than
 * an input token (Anthropic: 1.25× for 5 minutes, 2× for an hour), so with cache marks every prompt
 * token is held at the dearest rate the marks allow.
 */
function holdInputRate(prices: ChatPrices, tokens: TokenPrices, options: ChatPriceOptions | undefined): number {
  let rate = tokens.inputMicroPerMillion;
  if (tokens !== prices) return rate;
  if (options?.cacheWrites) rate = Math.max(rate, prices.cacheWriteMicroPerMillion);
  if (options?.cacheWrites === '1h') rate = Math.max(rate, prices.cacheWrite1hMicroPerMillion);
  return rate;
}

/**
 * The reservation: every prompt token at the dearest input rate the request allows, every allowed
 * output token, and every allowed web search.
 */
export function holdMicro(prices: ChatPrices, promptTokens: number, maxOutputTokens: number, options?: ChatPriceOptions): number {
  // The estimate is an upper bound: if it is above the threshold the prompt may be, so the hold is at
  // the tier's prices (assertLongContextBillable refused the request if the tier has none).
  const long = longTier(prices, promptTokens)?.prices;
  const tokens = long ?? (options?.priority && prices.priority ? prices.priority : prices);
  const total =
    BigInt(promptTokens) * BigInt(holdInputRate(prices, tokens, options)) +
    BigInt(maxOutputTokens) * BigInt(tokens.outputMicroPerMillion) +
    BigInt(options?.webSearches?.max ?? 0) * BigInt(prices.webSearchMicroPerCall ?? 0) * MILLION;
  return ceilDiv(total, MILLION);
}

/**
 * The charge for reported usage. `inputTokens` includes the cache reads and the cache writes: cache
 * reads are billed at the cached-input price, cache writes at the cache-write price of their lifetime
 * (`cacheCreation1hTokens` of them at the one-hour price), the rest of the prompt at the input price,
 * output at the output price, all at the prices of the tier the upstream reports; web searches at
 * the per-search price.
 */
export function costMicro(prices: ChatPrices, usage: ChatUsage): number {
  // A prompt above the threshold makes the whole request long-context (OpenAI: "for the full
  // session"; Google: "prompts > 200k tokens"), whatever part of it was cached.
  const tokens = longTier(prices, Math.max(0, usage.inputTokens))?.prices ?? tokenPrices(prices, usage.serviceTier);
  const standard = tokens === prices;
  const input = Math.max(0, usage.inputTokens);
  const reads = Math.min(input, Math.max(0, usage.cachedInputTokens));
  const writes = Math.min(input - reads, Math.max(0, usage.cacheCreationTokens));
  const writes1h = Math.min(writes, Math.max(0, usage.cacheCreation1hTokens ?? 0));
  const plain = input - reads - writes;
  // Priority processing and long-context tiers are OpenAI's and Google's, where a cache write costs an input token.
  const write5m = standard ? prices.cacheWriteMicroPerMillion : tokens.inputMicroPerMillion;
  const write1h = standard ? prices.cacheWrite1hMicroPerMillion : tokens.inputMicroPerMillion;
  const total =
    BigInt(plain) * BigInt(tokens.inputMicroPerMillion) +
    BigInt(reads) * BigInt(tokens.cachedInputMicroPerMillion) +
    BigInt(writes - writes1h) * BigInt(write5m) +
    BigInt(writes1h) * BigInt(write1h) +
    BigInt(Math.max(0, usage.outputTokens)) * BigInt(tokens.outputMicroPerMillion) +
    BigInt(Math.max(0, usage.webSearchRequests ?? 0)) * BigInt(prices.webSearchMicroPerCall ?? 0) * MILLION;
  return ceilDiv(total, MILLION);
}

/**
 * Refuses (400 naming the field) an option this model has no published price for: the request would
 * cost the operator what nobody is charged.
 */
export function assertPriceOptionsBillable(modelId: string, prices: ChatPrices, options: ChatPriceOptions | undefined): void {
  if (options?.priority && !prices.priority) {
    throw invalidInput(`Priority processing is not offered for ${modelId}: it has no published priority price (GET /api/v1/models lists the prices).`, options.priority.param);
  }
  if (options?.webSearches && prices.webSearchMicroPerCall === undefined) {
    throw invalidInput(`Server-side web search is not offered for ${modelId}: it has no published per-search price.`, options.webSearches.param);
  }
  // A one-hour mark's request may hold five-minute marks too: both lifetimes must be priced then.
  const lifetimes = prices.cacheWriteLifetimes;
  if (options?.cacheWrites && lifetimes && !(lifetimes.includes('5m') && (options.cacheWrites === '5m' || lifetimes.includes('1h')))) {
    const which = lifetimes.includes('5m') ? 'one-hour cache writes' : 'cache writes';
    throw invalidInput(`cache_control: ${which} are not offered for ${modelId}: it has no published price for them (GET /api/v1/models lists the prices). Leave the cache marks out.`, 'cache_control');
  }
}

/**
 * Refuses (400, before the hold) a request whose prompt estimate could cross a long-context threshold
 * the catalog has no price for, or that asks for priority processing there (OpenAI's priority prices
 * exclude long context). `promptTokens` is the hold's estimate, an upper bound.
 */
export function assertLongContextBillable(modelId: string, prices: ChatPrices, promptTokens: number, options: ChatPriceOptions | undefined): void {
  const tier = longTier(prices, promptTokens);
  if (tier === undefined) return;
  const above = tier.aboveTokens.toLocaleString('en-US');
  if (tier.prices === undefined) {
    throw invalidInput(`${modelId} prices prompts above ${above} tokens apart, and the catalog publishes no price for them; this prompt may be that long (its estimate is ${promptTokens.toLocaleString('en-US')} tokens). Shorten it or use another model.`, 'messages');
  }
  if (options?.priority) {
    throw invalidInput(`Priority processing has no published price for ${modelId} prompts above ${above} tokens; this prompt may be that long. Use service_tier "default".`, options.priority.param);
  }
}
