import type { Catalog } from '../../domain/catalog/catalog.ts';
import type { MeasuredMedia, PriceQuote } from '../../domain/catalog/catalog.types.ts';
import { type GroupPricing, groupPriceMicro, LIST_PPM, LIST_PRICES } from '../../domain/pricing/customer-groups.ts';
import type { MediaMeasurer } from '../../ports/media-measurer.port.ts';
import { type GenerationRequest, parseGenerationRequest } from './generation-request.ts';

export interface PricedRequest {
  request: GenerationRequest;
  measured: MeasuredMedia[];
  /** At the account's group price (customer-groups.ts): what the estimate answers and create debits. */
  quote: PriceQuote;
  /** The catalog version it was validated and priced by: the rest of a create reads this one, not a newer one. */
  catalog: Catalog;
}

/**
 * Validate, measure what must be measured, and price. The estimate endpoint and create-generation
 * both go through here, so an estimate is exactly what create will debit; both for the same account,
 * so at the same group price (the list price times its group's multiplier, rounded up once).
 */
export class EstimateService {
  private readonly catalog: Catalog;
  private readonly measurer: MediaMeasurer;
  private readonly groups: GroupPricing;

  constructor(catalog: Catalog, measurer: MediaMeasurer, groups: GroupPricing = LIST_PRICES) {
    this.catalog = catalog;
    this.measurer = measurer;
    this.groups = groups;
  }

  /** `accountId`: whose price (its group's); absent, the list price. */
  async price(body: unknown, accountId?: string): Promise<PricedRequest> {
    // The measurement awaits: a price change adopted meanwhile must not price what the old version validated.
    const catalog = this.catalog.snapshot();
    const request = parseGenerationRequest(catalog, body);
    // Read with the catalog, before the await, for the same reason.
    const ppm = accountId === undefined ? LIST_PPM : this.groups.ppmFor(accountId, request.model);
    const probes = catalog.probeRequests(request.model, request.input);
    const measured = probes.length > 0 ? await this.measurer.measure(probes) : [];
    if (measured.length > 0) catalog.checkMeasured(request.model, request.input, measured);
    const quote = groupQuote(catalog.price(request.model, request.input, measured), ppm);
    return { request, measured, quote, catalog };
  }
}

/** The quote at a group's multiplier: the whole cost scaled once (and the unit price, which a loss check compares with an upstream's). */
export function groupQuote(quote: PriceQuote, ppm: number): PriceQuote {
  if (ppm === LIST_PPM) return quote;
  return { ...quote, costMicro: groupPriceMicro(quote.costMicro, ppm), unitPriceMicro: groupPriceMicro(quote.unitPriceMicro, ppm) };
}
