/**
 * How long a failing upstream subject cools (issue 32, item 3): 5 s after the first failure since its
 * last success, doubling with each further one, at most 5 minutes; a rate limit cools for its
 * Retry-After (1 s to 5 minutes) when the upstream gave one.
 */
import type { UpstreamFailure } from '../../ports/upstream-health.port.ts';

export const FIRST_COOLING_MS = 5_000;
export const MAX_COOLING_MS = 5 * 60_000;

/** The cooling after the `failures`-th failure in a row (1 for the first). */
export function coolingMs(failures: number, failure: UpstreamFailure): number {
  if (failure.kind === 'rate_limited' && failure.retryAfterMs !== undefined) return Math.min(MAX_COOLING_MS, Math.max(1_000, failure.retryAfterMs));
  return Math.min(MAX_COOLING_MS, FIRST_COOLING_MS * 2 ** Math.min(Math.max(0, failures - 1), 20));
}
