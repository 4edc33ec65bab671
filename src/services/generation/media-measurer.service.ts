import { fetchAndProbe } from '../../adapters/media/fetch-and-probe.ts';
import { isMediaProbeError } from '../../adapters/media/probe-media.ts';
import type { GuardedHttpClient } from '../../adapters/outbound/guarded-http-client.ts';
import { isOutboundUrlError } from '../../adapters/outbound/outbound-url-error.ts';
import type { MeasuredMedia, ProbeRequest } from '../../domain/catalog/catalog.types.ts';
import { invalidInput } from '../../domain/errors.ts';
import type { MediaMeasurer } from '../../ports/media-measurer.port.ts';

/** Several URLs of one request are fetched at once, but not too many. */
const PARALLEL_FETCHES = 4;

/**
 * Measures user media before charging: each URL is fetched through the guarded client (checked
 * addresses, bounded size and time) and probed in-process. Any failure is the user's input being
 * unusable, so it is a 400 naming the field — and nothing has been charged yet.
 */
export class GuardedMediaMeasurer implements MediaMeasurer {
  private readonly client: GuardedHttpClient;
  private readonly timeoutMs: number;

  constructor(client: GuardedHttpClient, timeoutMs = 20_000) {
    this.client = client;
    this.timeoutMs = timeoutMs;
  }

  async measure(requests: ProbeRequest[]): Promise<MeasuredMedia[]> {
    const results: MeasuredMedia[] = new Array(requests.length);
    let next = 0;
    const work = async () => {
      while (next < requests.length) {
        const index = next++;
        const request = requests[index];
        if (request) results[index] = await this.measureOne(request);
      }
    };
    await Promise.all(Array.from({ length: Math.min(PARALLEL_FETCHES, requests.length) }, work));
    return results;
  }

  private async measureOne(request: ProbeRequest): Promise<MeasuredMedia> {
    const field = `input.${request.field}`;
    try {
      const probe = await fetchAndProbe(this.client, request.url, {
        kind: request.kind,
        maxBytes: request.maxBytes,
        formats: request.formats,
        timeoutMs: this.timeoutMs,
      });
      return {
        url: request.url,
        format: probe.format,
        bytes: probe.bytes,
        ...(probe.durationS !== undefined ? { durationS: probe.durationS } : {}),
      };
    } catch (error) {
      if (isOutboundUrlError(error)) {
        const why =
          error.reason === 'too_large'
            ? `is larger than ${Math.floor(request.maxBytes / (1024 * 1024))} MB`
            : error.reason === 'private_address'
              ? 'points to a private or local address'
              : `could not be downloaded (${error.message})`;
        throw invalidInput(`${field} ${why}`, field);
      }
      if (isMediaProbeError(error)) throw invalidInput(`${field} is not a usable ${request.kind} file: ${error.message}`, field);
      throw error;
    }
  }
}
