/**
 * What an upstream's failed answer says about the upstream (issue 32, item 3), for the health board:
 * 401 and 403 refuse our key (auth: the key is disabled until re-enabled); 402, or a 429 that says the
 * account's quota or credit is spent, is quota (disabled too); any other 429 is a rate limit (cools for
 * its Retry-After); time-outs, connection errors and 5xx are transient (cool with backoff). A refusal
 * of the request itself (400, 404 of a model, 413, 422) and a cancel (499) say nothing: undefined.
 */
import type { UpstreamFailure } from '../../ports/upstream-health.port.ts';

export interface FailedAnswer {
  status: number;
  message: string;
  /** The upstream's own error code or type, when it gave one. */
  code?: string;
  retryAfterMs?: number;
}

const SPENT = /insufficient_quota|quota|credit|billing|balance/iu;

export function classifyUpstreamFailure(answer: FailedAnswer): UpstreamFailure | undefined {
  const { status, message } = answer;
  if (status === 401 || status === 403) return { kind: 'auth', message };
  if (status === 402) return { kind: 'quota', message };
  if (status === 429) {
    if (SPENT.test(answer.code ?? '') || SPENT.test(message)) return { kind: 'quota', message };
    return answer.retryAfterMs === undefined ? { kind: 'rate_limited', message } : { kind: 'rate_limited', message, retryAfterMs: answer.retryAfterMs };
  }
  if (status === 408 || status >= 500) return { kind: 'transient', message };
  return undefined;
}
