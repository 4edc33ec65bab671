import type { MeasuredMedia, ProbeRequest } from '../domain/catalog/catalog.types.ts';

/**
 * Fetches user media URLs (through the guarded client) and measures them before we charge.
 * An unreachable, unreadable or oversized file is refused with invalid_input naming the field.
 */
export interface MediaMeasurer {
  measure(requests: ProbeRequest[]): Promise<MeasuredMedia[]>;
}
