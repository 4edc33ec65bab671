import type { Catalog } from '../../domain/catalog/catalog.ts';
import type { MeasuredMedia, PriceQuote } from '../../domain/catalog/catalog.types.ts';
import type { MediaMeasurer } from '../../ports/media-measurer.port.ts';
import { type GenerationRequest, parseGenerationRequest } from './generation-request.ts';

export interface PricedRequest {
  request: GenerationRequest;
  measured: MeasuredMedia[];
  quote: PriceQuote;
  /** The catalog version it was validated and priced by: the rest of a create reads this one, not a newer one. */
  catalog: Catalog;
}

/**
 * Validate, measure what must be measured, and price. The estimate endpoint and create-generation
 * both go through here, so an estimate is exactly what create will debit.
 */
export class EstimateService {
  private readonly catalog: Catalog;
  private readonly measurer: MediaMeasurer;

  constructor(catalog: Catalog, measurer: MediaMeasurer) {
    this.catalog = catalog;
    this.measurer = measurer;
  }

  async price(body: unknown): Promise<PricedRequest> {
    // The measurement awaits: a price change adopted meanwhile must not price what the old version validated.
    const catalog = this.catalog.snapshot();
    const request = parseGenerationRequest(catalog, body);
    const probes = catalog.probeRequests(request.model, request.input);
    const measured = probes.length > 0 ? await this.measurer.measure(probes) : [];
    if (measured.length > 0) catalog.checkMeasured(request.model, request.input, measured);
    const quote = catalog.price(request.model, request.input, measured);
    return { request, measured, quote, catalog };
  }
}
