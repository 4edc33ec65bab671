/** A text upstream's failure as the health board takes it (undefined: it says nothing bad about the upstream). */
import { classifyUpstreamFailure } from '../../domain/upstreams/failure-kind.ts';
import type { UpstreamFailure } from '../../ports/upstream-health.port.ts';
import type { ChatUpstreamError } from '../../providers/chat/chat-provider.ts';
import type { ProviderError } from '../../providers/media/media-provider.ts';

export function upstreamFailureOf(error: ChatUpstreamError): UpstreamFailure | undefined {
  return classifyUpstreamFailure({
    status: error.status,
    message: error.message,
    ...(error.type === undefined ? {} : { code: error.type }),
    ...(error.retryAfterS === undefined ? {} : { retryAfterMs: error.retryAfterS * 1000 }),
  });
}

/**
 * A media upstream's failure as the health board takes it, by the adapter's closed list of reasons
 * (ProviderErrorCode) when it gave one, else by its status, else a retryable failure is transient.
 * A refusal of the request itself (its content, its options, a job that ran and failed) says nothing
 * about the upstream.
 */
export function mediaFailureOf(error: ProviderError): UpstreamFailure | undefined {
  switch (error.code) {
    case 'auth':
      return { kind: 'auth', message: error.message };
    case 'credits':
      return { kind: 'quota', message: error.message };
    case 'rate_limited':
      return { kind: 'rate_limited', message: error.message };
    case 'network':
    case 'timeout':
    case 'unavailable':
    case 'protocol':
      return { kind: 'transient', message: error.message };
    case 'not_found':
    case 'invalid_request':
    case 'content_policy':
    case 'generation_failed':
    case 'unsupported':
    case 'canceled':
      return undefined;
    case undefined:
      if (error.status !== undefined) return classifyUpstreamFailure({ status: error.status, message: error.message });
      return error.retryable ? { kind: 'transient', message: error.message } : undefined;
  }
}
