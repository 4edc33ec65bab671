import type { RateLimit, RateLimiter, RateVerdict } from '../../ports/rate-limiter.port.ts';

interface Window {
  count: number;
  resetAt: number;
}

/** Live windows kept at most; a flood of distinct keys prunes the ended ones, then starts over. */
const MAX_KEYS = 100_000;

/**
 * Embedded mode (and the scale-out fallback): fixed windows in this process's memory, bounded in
 * size, forgotten when they end. Synchronous inside; the port is asynchronous for Redis.
 */
export class MemoryRateLimiter implements RateLimiter {
  readonly #windows = new Map<string, Window>();
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  async hit(key: string, limit: RateLimit): Promise<RateVerdict> {
    return this.hitNow(key, limit);
  }

  async peek(key: string, limit: RateLimit): Promise<RateVerdict> {
    return this.peekNow(key, limit);
  }

  hitNow(key: string, limit: RateLimit): RateVerdict {
    const now = this.#now();
    let window = this.#windows.get(key);
    if (!window || window.resetAt <= now) {
      if (!window && this.#windows.size >= MAX_KEYS) this.#prune(now);
      window = { count: 0, resetAt: now + limit.windowMs };
      this.#windows.set(key, window);
    }
    window.count += 1;
    return { allowed: window.count <= limit.max, count: window.count, retryAfterMs: window.resetAt - now };
  }

  peekNow(key: string, limit: RateLimit): RateVerdict {
    const now = this.#now();
    const window = this.#windows.get(key);
    if (!window || window.resetAt <= now) return { allowed: limit.max >= 1, count: 0, retryAfterMs: 0 };
    return { allowed: window.count < limit.max, count: window.count, retryAfterMs: window.resetAt - now };
  }

  async close(): Promise<void> {
    this.#windows.clear();
  }

  #prune(now: number): void {
    for (const [key, window] of this.#windows) if (window.resetAt <= now) this.#windows.delete(key);
    if (this.#windows.size >= MAX_KEYS) this.#windows.clear();
  }
}
