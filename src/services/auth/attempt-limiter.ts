/**
 * Counts events per key in a fixed window and says when a key has had too many: failed sign-ins per
 * email and per client address, sign-ups per address. Kept in the memory of each process (documented:
 * with N API processes an attacker gets N times the budget, still far too few guesses for a password),
 * bounded in size, forgotten when the window passes.
 */
export interface AttemptLimit {
  max: number;
  windowMs: number;
}

interface Window {
  count: number;
  resetAt: number;
}

const MAX_KEYS = 100_000;

export class AttemptLimiter {
  private readonly windows = new Map<string, Window>();
  private readonly limit: AttemptLimit;

  constructor(limit: AttemptLimit) {
    this.limit = limit;
  }

  /** Seconds until the key may try again, or 0 when it may now. */
  retryAfter(key: string, now: number = Date.now()): number {
    const window = this.windows.get(key);
    if (!window || window.resetAt <= now || window.count < this.limit.max) return 0;
    return Math.ceil((window.resetAt - now) / 1000);
  }

  record(key: string, now: number = Date.now()): void {
    let window = this.windows.get(key);
    if (!window || window.resetAt <= now) {
      if (this.windows.size >= MAX_KEYS) this.prune(now);
      window = { count: 0, resetAt: now + this.limit.windowMs };
      this.windows.set(key, window);
    }
    window.count += 1;
  }

  reset(key: string): void {
    this.windows.delete(key);
  }

  private prune(now: number): void {
    for (const [key, window] of this.windows) if (window.resetAt <= now) this.windows.delete(key);
    // Still full of live windows (a flood of distinct keys): start over rather than grow without bound.
    if (this.windows.size >= MAX_KEYS) this.windows.clear();
  }
}
