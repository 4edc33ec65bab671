import { type TokenBudget, type TokenVerdict, tokenWindowLeftMs, tokenWindowOf } from '../../ports/token-budget.port.ts';

/** Keys kept at most; a flood of distinct keys prunes the ended minutes, then starts over. */
const MAX_KEYS = 100_000;

/**
 * Embedded mode (and the scale-out fallback): each key's count in the current minute, in this
 * process's memory; a key's earlier minute is forgotten when the next one starts.
 */
export class MemoryTokenBudget implements TokenBudget {
  readonly #windows = new Map<string, { window: number; used: number }>();
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  async take(key: string, amount: number, max: number): Promise<TokenVerdict> {
    return this.takeNow(key, amount, max);
  }

  async giveBack(key: string, amount: number, window: number): Promise<void> {
    this.giveBackNow(key, amount, window);
  }

  takeNow(key: string, amount: number, max: number): TokenVerdict {
    const now = this.#now();
    const window = tokenWindowOf(now);
    let entry = this.#windows.get(key);
    if (!entry || entry.window !== window) {
      if (!entry && this.#windows.size >= MAX_KEYS) this.#prune(window);
      entry = { window, used: 0 };
      this.#windows.set(key, entry);
    }
    if (entry.used + amount > max) return { allowed: false, used: entry.used, retryAfterMs: tokenWindowLeftMs(now) };
    entry.used += amount;
    return { allowed: true, window, used: entry.used };
  }

  giveBackNow(key: string, amount: number, window: number): void {
    const entry = this.#windows.get(key);
    if (entry && entry.window === window) entry.used = Math.max(0, entry.used - amount);
  }

  async close(): Promise<void> {
    this.#windows.clear();
  }

  #prune(window: number): void {
    for (const [key, entry] of this.#windows) if (entry.window !== window) this.#windows.delete(key);
    if (this.#windows.size >= MAX_KEYS) this.#windows.clear();
  }
}
