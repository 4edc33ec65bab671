/**
 * Counts events per key in fixed windows, for abuse limits (redeem guesses, admin token failures,
 * checkout sessions, webhook deliveries per user). Embedded: the memory of this process. Scale-out:
 * Redis, shared by every process, with this process's memory as the fallback while Redis is away:
 * a limiter never blocks or fails a request because its store is unreachable.
 */
export interface RateLimit {
  /** Events allowed per window. */
  max: number;
  windowMs: number;
}

export interface RateVerdict {
  /** The event (for `hit`) or the next one (for `peek`) is within the limit. */
  allowed: boolean;
  /** Events counted in the current window, this one included. */
  count: number;
  /** Milliseconds until the current window ends (a refused caller may try again then). */
  retryAfterMs: number;
}

export interface RateLimiter {
  /** Counts one event under `key` (refused ones too) and says whether it is within `limit`. */
  hit(key: string, limit: RateLimit): Promise<RateVerdict>;
  /** Whether one more event would be within `limit`, without counting it. */
  peek(key: string, limit: RateLimit): Promise<RateVerdict>;
  close(): Promise<void>;
}

/** Whole seconds for a `Retry-After` header: at least 1. */
export function retryAfterSeconds(verdict: RateVerdict): number {
  return Math.max(1, Math.ceil(verdict.retryAfterMs / 1000));
}
