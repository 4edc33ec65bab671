/**
 * Google's errors, classified by the shared table (docs/media-providers.md "Errors") with the
 * Gemini API's own words where they say more than the HTTP status: `{error: {code, message, status,
 * details}}` (google.rpc.Status), and the `google.rpc.Code` of a failed long-running operation.
 */
import type { ProviderError } from '../media-provider.ts';
import { httpError } from '../shared/provider-errors.ts';
import { retryAfterMs as headerRetryAfterMs, type UpstreamResponse } from '../../../adapters/outbound/upstream-http-client.ts';
import { bodySnippet, isRecord, numberAt, parseJson, recordAt, stringAt } from '../shared/json-values.ts';

function details(error: Record<string, unknown> | undefined): Record<string, unknown>[] {
  return error && Array.isArray(error.details) ? error.details.filter(isRecord) : [];
}

function detailOf(error: Record<string, unknown> | undefined, type: string): Record<string, unknown> | undefined {
  return details(error).find((d) => stringAt(d, '@type') === `type.googleapis.com/google.rpc.${type}`);
}

/** `37s`, `1.5s` (google.protobuf.Duration in JSON) → milliseconds. */
function durationMs(text: string | undefined): number | undefined {
  const m = text === undefined ? null : /^(\d+(?:\.\d+)?)s$/u.exec(text.trim());
  return m ? Math.round(Number(m[1]) * 1000) : undefined;
}

/** How long Google asks us to wait: the Retry-After header (seconds or a date), else RetryInfo.retryDelay. */
export function retryAfterMs(response: UpstreamResponse, now = Date.now()): number | undefined {
  return headerRetryAfterMs(response.headers, now) ?? durationMs(stringAt(detailOf(recordAt(parseJson(response.body), 'error'), 'RetryInfo'), 'retryDelay'));
}

/** An error answer of the Gemini API as a ProviderError. */
export function googleError(response: UpstreamResponse, what: string): ProviderError {
  const error = recordAt(parseJson(response.body), 'error');
  const status = stringAt(error, 'status');
  const text = stringAt(error, 'message') ?? bodySnippet(response.body);
  const wait = response.status === 429 ? retryAfterMs(response) : undefined;
  const message = `google ${what}: ${response.status}${status ? ` ${status}` : ''} ${text}${wait === undefined ? '' : ` (retry after ${Math.ceil(wait / 1000)} s)`}`;
  const base = httpError(response.status, message);
  // Google answers a bad key with 400 INVALID_ARGUMENT; the reason in ErrorInfo says it is our key.
  const reason = stringAt(detailOf(error, 'ErrorInfo'), 'reason');
  if (reason?.startsWith('API_KEY_')) return { ...base, retryable: true, code: 'auth' };
  // "Free tier not available in your country, enable billing": our account, not the request.
  if (status === 'FAILED_PRECONDITION') return { ...base, retryable: true, code: 'auth' };
  return base;
}

/** Words of a refused Veo operation that blame its content (Google's Responsible AI filters). */
const POLICY_WORDS = /responsible ai|safety|usage guidelines|violat|sensitive|prohibited|policies/iu;

/**
 * A long-running operation that ended with `error` (google.rpc.Code): invalid arguments are the
 * request's fault (policy refusals among them), our key or quota is this provider's, and anything
 * else is a generation failure another route may not have.
 */
export function operationError(error: Record<string, unknown>): ProviderError {
  const code = numberAt(error, 'code');
  const text = stringAt(error, 'message') ?? 'no reason given';
  const message = `google video failed${code === undefined ? '' : ` (code ${code})`}: ${text}`;
  if (code === 3 || code === 11) {
    return POLICY_WORDS.test(text) ? { message, retryable: false, code: 'content_policy' } : { message, retryable: false, code: 'invalid_request' };
  }
  if (code === 7 || code === 16) return { message, retryable: true, code: 'auth' };
  if (code === 8) return { message, retryable: true, code: 'rate_limited' };
  return { message, retryable: true, code: 'generation_failed' };
}
