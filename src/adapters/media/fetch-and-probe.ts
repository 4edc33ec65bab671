import type { GuardedHttpClient } from '../outbound/guarded-http-client.ts';
import { OutboundUrlError } from '../outbound/outbound-url-error.ts';
import { type MediaKind, normalizeFormatName } from '../../domain/files/media-format.ts';
import { type MediaProbe, MediaProbeError, probeMedia } from './probe-media.ts';

export interface FetchAndProbeOptions {
  kind: MediaKind;
  /** Largest download accepted, in bytes; a larger file fails with OutboundUrlError `too_large`. */
  maxBytes: number;
  /** Accepted container formats, lower case (`jpg` is read as `jpeg`); empty accepts any of the kind. */
  formats: readonly string[];
  /** Deadline of the download; default 30 s. */
  timeoutMs?: number;
}

/** The probe plus the URL that finally answered (after redirects). */
export interface FetchedMedia extends MediaProbe {
  url: string;
  finalUrl: string;
}

/**
 * Downloads a user's media URL through the guarded client (bounded size and time, checked
 * addresses) and measures it. A non-2xx answer fails with OutboundUrlError `http`; content that is
 * not what was asked for fails with MediaProbeError. The format is judged from the bytes only.
 */
export async function fetchAndProbe(client: GuardedHttpClient, url: string, options: FetchAndProbeOptions): Promise<FetchedMedia> {
  const response = await client.request({ url, method: 'GET', timeoutMs: options.timeoutMs ?? 30_000, maxBytes: options.maxBytes });
  if (response.status < 200 || response.status > 299) {
    throw new OutboundUrlError('http', `the server answered ${response.status} instead of the file`, url);
  }
  const probe = await probeMedia(response.body, { kind: options.kind });
  const accepted = options.formats.map(normalizeFormatName);
  if (accepted.length > 0 && !accepted.includes(probe.format)) {
    throw new MediaProbeError('format_not_allowed', `the file is ${probe.format}; accepted here: ${accepted.join(', ')}`, probe.format);
  }
  return { ...probe, url, finalUrl: response.finalUrl };
}
