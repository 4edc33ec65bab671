/**
 * What an upstream charges us on one route entry (issue 32, item 6), and whether the entry runs at a
 * loss: it costs more than the price the client pays. Such an entry still serves as a model's first
 * choice (the operator put it there), but a failover never moves a request onto it unless the
 * operator allowed that route to run at a loss (`allowLoss`).
 */
import type { ChatModelDefinition, PriceQuote } from '../catalog/catalog.types.ts';
import type { ChatUsage } from '../chat/chat-response.types.ts';
import { usdToMicro } from '../money.ts';

/** An entry's upstream cost: text models per 1M tokens, media models per unit of each price tier (decimal USD). */
export interface RouteCost {
  inputPrice?: string;
  outputPrice?: string;
  cachedInputPrice?: string;
  pricing?: Array<{ key: string; price: string }>;
}

/** The cost in micro-USD, as the catalog's prices are held. */
export interface RouteCostMicro {
  inputPerMillion?: number;
  outputPerMillion?: number;
  cachedInputPerMillion?: number;
  /** Tier key → micro-USD per unit. */
  tiers: ReadonlyMap<string, number>;
}

interface CostedEntry {
  provider: string;
  model: string;
  cost?: RouteCost;
  allowLoss?: boolean;
}

// Entries are rebuilt on every live change, so their cost objects key the parse and go with them.
const parsed = new WeakMap<RouteCost, RouteCostMicro>();

export function routeCostMicro(cost: RouteCost): RouteCostMicro {
  let micro = parsed.get(cost);
  if (!micro) {
    micro = {
      ...(cost.inputPrice === undefined ? {} : { inputPerMillion: usdToMicro(cost.inputPrice) }),
      ...(cost.outputPrice === undefined ? {} : { outputPerMillion: usdToMicro(cost.outputPrice) }),
      ...(cost.cachedInputPrice === undefined ? {} : { cachedInputPerMillion: usdToMicro(cost.cachedInputPrice) }),
      tiers: new Map((cost.pricing ?? []).map((t) => [t.key, usdToMicro(t.price)])),
    };
    parsed.set(cost, micro);
  }
  return micro;
}

const MILLION = 1_000_000n;

/** A count as the upstream bills it: what it reported, when that is a count; otherwise what we billed. */
function billedCount(reported: number | undefined, bounded: number): number {
  return reported !== undefined && Number.isFinite(reported) && reported >= 0 ? Math.ceil(reported) : bounded;
}

/**
 * What a text entry's upstream charged us for one request, rounded up to the micro-USD: the tokens it
 * reported (its bill, even where ours was bounded lower), cache reads at the cached price (the input
 * price when none is set) and cache writes as input. Null when the entry has no cost set.
 */
export function chatUpstreamCostMicro(cost: RouteCost | undefined, reported: ChatUsage | undefined, bounded: ChatUsage): number | null {
  if (!cost) return null;
  const c = routeCostMicro(cost);
  const input = billedCount(reported?.inputTokens, bounded.inputTokens);
  const reads = Math.min(input, billedCount(reported?.cachedInputTokens, bounded.cachedInputTokens));
  const output = billedCount(reported?.outputTokens, bounded.outputTokens);
  const inputPrice = BigInt(c.inputPerMillion ?? 0);
  const total = BigInt(input - reads) * inputPrice + BigInt(reads) * BigInt(c.cachedInputPerMillion ?? c.inputPerMillion ?? 0) + BigInt(output) * BigInt(c.outputPerMillion ?? 0);
  return Number((total + MILLION - 1n) / MILLION);
}

/** What a media entry's upstream charged us for a result: its cost for the tier times the units. Null when it has no cost for that tier. */
export function mediaUpstreamCostMicro(cost: RouteCost | undefined, tierKey: string, units: number): number | null {
  if (!cost) return null;
  const perUnit = routeCostMicro(cost).tiers.get(tierKey);
  return perUnit === undefined ? null : perUnit * units;
}

/** A text entry loses money when any token it is paid for costs us more than the client pays. */
export function chatEntryAtLoss(entry: CostedEntry, model: ChatModelDefinition): boolean {
  if (!entry.cost) return false;
  const c = routeCostMicro(entry.cost);
  return (
    (c.inputPerMillion ?? 0) > model.inputMicroPerMillion ||
    (c.outputPerMillion ?? 0) > model.outputMicroPerMillion ||
    (c.cachedInputPerMillion ?? 0) > model.cachedInputMicroPerMillion
  );
}

/** A media entry loses money on a request when its cost for the request's tier is above the tier's price. */
export function mediaEntryAtLoss(entry: CostedEntry, quote: Pick<PriceQuote, 'tierKey' | 'unitPriceMicro'>): boolean {
  if (!entry.cost) return false;
  const cost = routeCostMicro(entry.cost).tiers.get(quote.tierKey);
  return cost !== undefined && cost > quote.unitPriceMicro;
}

/** A media entry loses money on some tier of the catalog's prices (for the operator's view). */
export function mediaEntryAtLossOnAnyTier(entry: CostedEntry, tierPrices: ReadonlyMap<string, number>): boolean {
  if (!entry.cost) return false;
  for (const [key, cost] of routeCostMicro(entry.cost).tiers) {
    const price = tierPrices.get(key);
    if (price !== undefined && cost > price) return true;
  }
  return false;
}

/**
 * The entries a request may try, in order, without failing over onto a loss: the first entry tried
 * (every key of it) stays whatever it costs; a later one at a loss stays only if allowed.
 */
export function withoutLossFailovers<T extends CostedEntry>(ordered: T[], atLoss: (entry: T) => boolean): T[] {
  const first = ordered[0];
  if (!first || !ordered.some((e) => e.cost !== undefined)) return ordered;
  return ordered.filter((e) => (e.provider === first.provider && e.model === first.model) || e.allowLoss === true || !atLoss(e));
}
