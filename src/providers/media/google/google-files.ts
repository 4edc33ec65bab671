/**
 * Bytes in and out of the Gemini API. Reference images are sent inline (Google fetches no URL of ours
 * for Veo), so they are fetched here through the guarded client, bounded. Veo's result is a file URI
 * that needs our key: the key is sent only to the configured API origin, and a redirect (Google's
 * download answers 302 to storage) is followed through the guarded client without it.
 */
import type { GuardedHttpClient } from '../../../adapters/outbound/guarded-http-client.ts';
import { isOutboundUrlError } from '../../../adapters/outbound/outbound-url-error.ts';
import type { ProviderError } from '../media-provider.ts';
import { decodeDataUri } from '../shared/multipart.ts';
import { isTransientStatus } from '../shared/provider-errors.ts';
import type { UpstreamHttpClient } from '../../../adapters/outbound/upstream-http-client.ts';
import { googleError } from './google-errors.ts';

export interface InlineImage {
  data: Buffer;
  mimeType: 'image/png' | 'image/jpeg' | 'image/webp';
}

/** The image type from the bytes themselves: a server's content-type is not trusted for this. */
export function sniffImageType(bytes: Buffer): InlineImage['mimeType'] | undefined {
  if (bytes.length >= 8 && bytes.readUInt32BE(0) === 0x89504e47) return 'image/png';
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  if (bytes.length >= 12 && bytes.toString('latin1', 0, 4) === 'RIFF' && bytes.toString('latin1', 8, 12) === 'WEBP') return 'image/webp';
  return undefined;
}

export interface FetchLimits {
  timeoutMs: number;
  maxBytes: number;
}

/** One reference image (`input.urls[index]`): a data URI decoded, or the URL fetched through the guarded client. */
export async function fetchReferenceImage(guarded: GuardedHttpClient, url: string, index: number, limits: FetchLimits): Promise<InlineImage | { error: ProviderError }> {
  const field = `input.urls[${index}]`;
  let data: Buffer;
  const decoded = url.startsWith('data:') ? decodeDataUri(url) : undefined;
  if (decoded) {
    data = decoded.data;
  } else {
    try {
      const response = await guarded.request({ url, timeoutMs: limits.timeoutMs, maxBytes: limits.maxBytes });
      if (response.status !== 200) {
        // The user's server is busy or down: perhaps not for long, and another route fetches it again.
        const transient = isTransientStatus(response.status);
        return { error: { message: `${field}: the image answered HTTP ${response.status}`, retryable: transient, code: transient ? 'network' : 'invalid_request' } };
      }
      data = response.body;
    } catch (error) {
      const transient = isOutboundUrlError(error) && (error.reason === 'timeout' || error.reason === 'connect');
      const message = `${field}: ${error instanceof Error ? error.message : String(error)}`;
      return { error: { message, retryable: transient, code: transient ? 'network' : 'invalid_request' } };
    }
  }
  if (data.length > limits.maxBytes) return { error: { message: `${field}: the image is larger than ${limits.maxBytes} bytes`, retryable: false, code: 'invalid_request' } };
  const mimeType = sniffImageType(data);
  if (!mimeType) return { error: { message: `${field}: not a PNG, JPEG or WebP image`, retryable: false, code: 'invalid_request' } };
  return { data, mimeType };
}

export type DownloadOutcome =
  | { kind: 'file'; data: Buffer; contentType: string }
  /** The file did not come through this time: poll again. */
  | { kind: 'retry'; error: ProviderError }
  | { kind: 'failed'; error: ProviderError };

export interface DownloadDeps {
  http: UpstreamHttpClient;
  guarded: GuardedHttpClient;
  /** The configured API origin: the only one our key is sent to. */
  apiOrigin: string;
  apiKey: string;
  timeoutMs: number;
  maxBytes: number;
  signal: AbortSignal;
}

function contentTypeOf(headers: Record<string, string>): string {
  return headers['content-type']?.split(';')[0]?.trim() || 'video/mp4';
}

/** Downloads a result URI, with our key on the API origin only. */
export async function downloadResult(deps: DownloadDeps, uri: string): Promise<DownloadOutcome> {
  let target: URL;
  try {
    target = new URL(uri);
  } catch {
    return { kind: 'failed', error: { message: `google answered a file URI that is not a URL: ${uri.slice(0, 200)}`, retryable: true, code: 'protocol' } };
  }
  if (target.origin !== deps.apiOrigin) return downloadElsewhere(deps, target.href);
  const exchange = await deps.http.send({
    method: 'GET',
    url: target.href,
    headers: { 'x-goog-api-key': deps.apiKey, accept: 'video/mp4, */*' },
    signal: deps.signal,
    timeoutMs: deps.timeoutMs,
    maxBytes: deps.maxBytes,
  });
  if (exchange.kind === 'no-response') return { kind: 'retry', error: exchange.error };
  const { response } = exchange;
  const location = response.headers.location;
  if (response.status >= 300 && response.status < 400 && location) return downloadElsewhere(deps, new URL(location, target).href);
  if (response.status < 300) return { kind: 'file', data: response.body, contentType: contentTypeOf(response.headers) };
  const error = googleError(response, 'video download');
  if (isTransientStatus(response.status)) return { kind: 'retry', error };
  // Gone (Google keeps videos for two days), or our key refused: the reserve route may serve it.
  return { kind: 'failed', error: { ...error, retryable: true } };
}

/** A URL Google pointed us to: fetched through the guarded client (each hop checked), never with our key. */
async function downloadElsewhere(deps: DownloadDeps, url: string): Promise<DownloadOutcome> {
  try {
    const response = await deps.guarded.request({ url, timeoutMs: deps.timeoutMs, maxBytes: deps.maxBytes, headers: { accept: 'video/mp4, */*' } });
    if (response.status === 200) return { kind: 'file', data: response.body, contentType: contentTypeOf(response.headers) };
    const error: ProviderError = { message: `google video download: HTTP ${response.status} from ${new URL(url).host}`, retryable: true, status: response.status, code: 'unavailable' };
    return isTransientStatus(response.status) ? { kind: 'retry', error } : { kind: 'failed', error: { ...error, code: 'generation_failed' } };
  } catch (error) {
    const message = `google video download: ${error instanceof Error ? error.message : String(error)}`;
    if (isOutboundUrlError(error) && (error.reason === 'timeout' || error.reason === 'connect' || error.reason === 'dns')) {
      return { kind: 'retry', error: { message, retryable: true, code: 'network' } };
    }
    return { kind: 'failed', error: { message, retryable: true, code: 'protocol' } };
  }
}
