/**
 * The prices of a text model: configured USD amounts read into micro-USD, cache writes as multiples
 * of the input price, and the tiers the catalog publishes.
 */
import { ConfigError } from '../../config-error.ts';
import { microToUsd, usdToMicro } from '../../money.ts';
import type { ChatModelDefinition, PriceTier } from '../catalog.types.ts';

/** Input price × factor, rounded up to the micro-USD (a write never costs less than the vendor's rate). */
export function scaled(inputMicro: number, factor: number): number {
  return Math.ceil(inputMicro * factor - 1e-9);
}

export function configPrice(field: string, usd: string): number {
  try {
    return usdToMicro(usd);
  } catch {
    throw new ConfigError(field, `must be a USD amount with at most 6 decimals, got ${JSON.stringify(usd)}`);
  }
}

/**
 * The cache-write and web-search prices of an override or an added text model (USD per 1M tokens;
 * searches USD per 1,000, a whole micro-USD per search). A configured cache-write price also makes
 * that lifetime's marks billable on a model that had none.
 */
export function applyOptionPrices(def: ChatModelDefinition, o: { cacheWritePrice?: string | undefined; cacheWrite1hPrice?: string | undefined; webSearchPrice?: string | undefined }, field: string): void {
  const allow = (lifetime: '5m' | '1h'): void => {
    if (def.cacheWriteLifetimes && !def.cacheWriteLifetimes.includes(lifetime)) def.cacheWriteLifetimes.push(lifetime);
  };
  if (o.cacheWritePrice !== undefined) {
    def.cacheWriteMicroPerMillion = configPrice(`${field}.cacheWritePrice`, o.cacheWritePrice);
    allow('5m');
  }
  if (o.cacheWrite1hPrice !== undefined) {
    def.cacheWrite1hMicroPerMillion = configPrice(`${field}.cacheWrite1hPrice`, o.cacheWrite1hPrice);
    allow('1h');
  }
  if (o.webSearchPrice !== undefined) {
    const per1k = configPrice(`${field}.webSearchPrice`, o.webSearchPrice);
    if (per1k % 1000 !== 0) throw new ConfigError(`${field}.webSearchPrice`, `is USD per 1,000 searches and must come to a whole micro-USD per search (a multiple of 0.001), got ${JSON.stringify(o.webSearchPrice)}`);
    def.webSearchMicroPerCall = per1k / 1000;
  }
}

/**
 * A text model's prices as catalog tiers, USD per million (priceUnit megatoken): tokens, cache
 * writes by lifetime, priority processing when offered, and web searches per million searches.
 */
export function chatPriceTiers(def: ChatModelDefinition): PriceTier[] {
  const tier = (key: string, micro: number): PriceTier => ({ key, price: microToUsd(micro), isDefault: key === 'input' });
  const tiers = [
    tier('input', def.inputMicroPerMillion),
    tier('output', def.outputMicroPerMillion),
    tier('cached_input', def.cachedInputMicroPerMillion),
    tier('cache_write', def.cacheWriteMicroPerMillion),
    tier('cache_write_1h', def.cacheWrite1hMicroPerMillion),
  ];
  if (def.priority) {
    tiers.push(tier('priority_input', def.priority.inputMicroPerMillion), tier('priority_output', def.priority.outputMicroPerMillion), tier('priority_cached_input', def.priority.cachedInputMicroPerMillion));
  }
  if (def.webSearchMicroPerCall !== undefined) tiers.push(tier('web_search', def.webSearchMicroPerCall * 1_000_000));
  // Long-context tiers name their threshold: the whole request costs them above that many prompt tokens.
  const long = def.longContext;
  if (long?.prices) {
    const dimensions = { promptTokensAbove: String(long.aboveTokens) };
    const longTier = (key: string, micro: number): PriceTier => ({ ...tier(key, micro), dimensions });
    tiers.push(longTier('long_context_input', long.prices.inputMicroPerMillion), longTier('long_context_output', long.prices.outputMicroPerMillion), longTier('long_context_cached_input', long.prices.cachedInputMicroPerMillion));
  }
  return tiers;
}
