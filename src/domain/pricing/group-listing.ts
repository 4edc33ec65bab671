/**
 * Listings at a customer group's price (issue 33, item 4): the catalog, /cost and /models show an
 * account the rates it is charged, each list rate scaled by the one rule (groupPriceMicro: the list
 * amount times the multiplier, rounded up to the micro-USD). A charge scales the request's whole list
 * amount once, so it can be below the sum of scaled rates by rounding, never above.
 */
import type { CatalogModel, ChatModelDefinition } from '../catalog/catalog.types.ts';
import type { TokenPrices } from '../chat/chat-billing.ts';
import { microToUsd, usdToMicro } from '../money.ts';
import { groupPriceMicro, LIST_PPM } from './customer-groups.ts';

/** A decimal USD price at the group's multiplier. */
export function groupUsd(usd: string, ppm: number): string {
  return ppm === LIST_PPM ? usd : microToUsd(groupPriceMicro(usdToMicro(usd), ppm));
}

/** A catalog model with its tiers and headline price at the group's multiplier. */
export function groupCatalogModel(model: CatalogModel, ppm: number): CatalogModel {
  if (ppm === LIST_PPM) return model;
  return {
    ...model,
    pricing: model.pricing.map((tier) => ({ ...tier, price: groupUsd(tier.price, ppm) })),
    ...(model.priceFrom === undefined ? {} : { priceFrom: groupUsd(model.priceFrom, ppm) }),
  };
}

function tokenPrices<T extends TokenPrices>(prices: T, ppm: number): T {
  return {
    ...prices,
    inputMicroPerMillion: groupPriceMicro(prices.inputMicroPerMillion, ppm),
    outputMicroPerMillion: groupPriceMicro(prices.outputMicroPerMillion, ppm),
    cachedInputMicroPerMillion: groupPriceMicro(prices.cachedInputMicroPerMillion, ppm),
  };
}

/** A copy of a text model's definition with every rate at the group's multiplier: for listings only, never billed by. */
export function groupChatModel(def: ChatModelDefinition, ppm: number): ChatModelDefinition {
  if (ppm === LIST_PPM) return def;
  return {
    ...tokenPrices(def, ppm),
    cacheWriteMicroPerMillion: groupPriceMicro(def.cacheWriteMicroPerMillion, ppm),
    cacheWrite1hMicroPerMillion: groupPriceMicro(def.cacheWrite1hMicroPerMillion, ppm),
    ...(def.webSearchMicroPerCall === undefined ? {} : { webSearchMicroPerCall: groupPriceMicro(def.webSearchMicroPerCall, ppm) }),
    ...(def.priority === undefined ? {} : { priority: tokenPrices(def.priority, ppm) }),
    ...(def.longContext === undefined ? {} : { longContext: { ...def.longContext, ...(def.longContext.prices ? { prices: tokenPrices(def.longContext.prices, ppm) } : {}) } }),
  };
}
