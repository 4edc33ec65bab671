/**
 * The AppError a route reports when every attempt failed, from the last upstream failure. Statuses
 * that describe the client's request (400, 413, 429) pass through with the upstream's own message, so
 * that an unsupported field is refused in the upstream's words; statuses that describe our account at
 * the upstream (401, 402, 403, 404) become 502: the client's key and balance are fine.
 */
import { AppError } from '../../domain/errors.ts';
import type { ChatUpstreamError } from './chat-provider.ts';

export function appErrorFromUpstream(error: ChatUpstreamError): AppError {
  const retry = error.retryAfterS === undefined ? {} : { retryAfter: error.retryAfterS };
  switch (true) {
    case error.status === 400 || error.status === 422:
      return new AppError('invalid_input', error.message, error.param === undefined ? {} : { param: error.param });
    case error.status === 413:
      return new AppError('payload_too_large', error.message);
    case error.status === 429:
      return new AppError('rate_limited', error.message, retry);
    case error.status === 499:
      return new AppError('upstream_error', error.message, { status: 499 });
    case error.status === 504 || error.status === 408:
      return new AppError('upstream_timeout', error.message, retry);
    case error.status === 503 || error.status === 529:
      return new AppError('service_unavailable', `The upstream provider is overloaded: ${error.message}`, retry);
    default:
      // Retry-After is kept whenever the upstream sent one (a 5xx during maintenance often does).
      return new AppError('upstream_error', `The upstream provider failed: ${error.message}`, error.status >= 500 ? retry : {});
  }
}
