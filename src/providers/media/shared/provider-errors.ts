/**
 * Error classification shared by every media style (docs/media-providers.md "Errors").
 *
 * Failover reads only `retryable`. The rule: a problem with the request's content (validation,
 * moderation, too large) is not retryable, since another provider would refuse it too and a 400 is
 * corrected, not retried; a problem with this provider (no answer, busy, down, our key refused, our
 * balance there spent, the model unknown there) is retryable, because the reserve route may serve it.
 */
import type { ProviderError, ProviderErrorCode, SubmitOutcome } from '../media-provider.ts';
import { type HttpExchange, retryAfterMs } from '../../../adapters/outbound/upstream-http-client.ts';

interface StatusClass {
  retryable: boolean;
  code: ProviderErrorCode;
}

/** The class of an upstream HTTP status (or of a vendor's numeric code that mirrors HTTP). */
export function statusClass(status: number): StatusClass {
  if (status === 401 || status === 403) return { retryable: true, code: 'auth' };
  if (status === 402) return { retryable: true, code: 'credits' };
  if (status === 404 || status === 410) return { retryable: true, code: 'not_found' };
  if (status === 408) return { retryable: true, code: 'timeout' };
  if (status === 425 || status === 429) return { retryable: true, code: 'rate_limited' };
  if (status >= 500) return { retryable: true, code: 'unavailable' };
  if (status >= 400) return { retryable: false, code: 'invalid_request' };
  return { retryable: true, code: 'protocol' };
}

export function httpError(status: number, message: string, override?: Partial<StatusClass>): ProviderError {
  const cls = { ...statusClass(status), ...override };
  return { message, retryable: cls.retryable, status, code: cls.code };
}

export function protocolError(message: string, status?: number): ProviderError {
  return { message, retryable: true, code: 'protocol', ...(status === undefined ? {} : { status }) };
}

export function unsupported(message: string): ProviderError {
  return { message, retryable: true, code: 'unsupported' };
}

/**
 * What a submit without an answer means: certainly not delivered, so it failed and may go elsewhere;
 * or perhaps delivered, so it is unknown and must be reconciled.
 */
export function submitWithoutAnswer(exchange: Extract<HttpExchange, { kind: 'no-response' }>): SubmitOutcome {
  return exchange.maybeDelivered ? { kind: 'unknown', error: exchange.error } : { kind: 'failed', error: exchange.error };
}

/** A poll that did not get through is not a failed job: look again later. */
export const POLL_RETRY_MS = 5_000;

/** Whether a status seen while polling says "ask again later" rather than "the job is gone". */
export function isTransientStatus(status: number): boolean {
  return status === 408 || status === 425 || status === 429 || status >= 500;
}

/** The longest wait a Retry-After may impose on one poll: a job that is waited for is not given up. */
const MAX_RETRY_AFTER_MS = 10 * 60_000;

/**
 * When to ask again after a transient answer (429, 5xx): the upstream's Retry-After (`retryAfterMs`)
 * when it sent one, never sooner than `fallbackMs`, at most ten minutes.
 */
export function retryDelayMs(response: { headers: Record<string, string> }, fallbackMs: number, now: number = Date.now()): number {
  return Math.min(MAX_RETRY_AFTER_MS, Math.max(fallbackMs, retryAfterMs(response.headers, now) ?? 0));
}
