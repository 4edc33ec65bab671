/**
 * Failed sign-ins per (client address, email) pair: a few attempts are free, then each one must wait
 * twice as long as the one before (1 s, 2 s, 4 s, … at most 15 minutes), and the count is forgotten an
 * hour after the last failure. An attacker guessing one account from one address is slowed to a crawl,
 * while the account's owner, signing in from anywhere else, is never locked out (a per-email lock let
 * anyone lock any account with ten wrong passwords). Kept per process, bounded in size.
 */
const MAX_KEYS = 100_000;

export interface BackoffPolicy {
  /** Failures allowed before any waiting. */
  free: number;
  baseMs: number;
  maxMs: number;
  forgetMs: number;
}

/** The schedule part of a policy: free failures, then waits from `baseMs` doubling up to `maxMs`. */
export type BackoffSteps = Pick<BackoffPolicy, 'free' | 'baseMs' | 'maxMs'>;

interface Entry {
  failures: number;
  lastFailureAt: number;
}

export class BackoffLimiter {
  private readonly entries = new Map<string, Entry>();
  private readonly policy: BackoffPolicy;

  constructor(policy: BackoffPolicy) {
    this.policy = policy;
  }

  /**
   * Seconds the key must still wait before its next attempt (0: it may try now). `steps` replaces the
   * policy's free failures and waits for this answer (a stricter schedule over the same count).
   */
  retryAfter(key: string, now: number = Date.now(), steps: BackoffSteps = this.policy): number {
    const entry = this.live(key, now);
    if (!entry || entry.failures < steps.free) return 0;
    const wait = Math.min(steps.maxMs, steps.baseMs * 2 ** (entry.failures - steps.free));
    const remaining = entry.lastFailureAt + wait - now;
    return remaining > 0 ? Math.ceil(remaining / 1000) : 0;
  }

  /** Failures of the key not yet forgotten. */
  failures(key: string, now: number = Date.now()): number {
    return this.live(key, now)?.failures ?? 0;
  }

  recordFailure(key: string, now: number = Date.now()): void {
    const entry = this.live(key, now) ?? { failures: 0, lastFailureAt: now };
    entry.failures += 1;
    entry.lastFailureAt = now;
    if (!this.entries.has(key) && this.entries.size >= MAX_KEYS) this.prune(now);
    this.entries.set(key, entry);
  }

  reset(key: string): void {
    this.entries.delete(key);
  }

  private live(key: string, now: number): Entry | undefined {
    const entry = this.entries.get(key);
    if (entry && now - entry.lastFailureAt > this.policy.forgetMs) {
      this.entries.delete(key);
      return undefined;
    }
    return entry;
  }

  private prune(now: number): void {
    for (const [key, entry] of this.entries) if (now - entry.lastFailureAt > this.policy.forgetMs) this.entries.delete(key);
    if (this.entries.size >= MAX_KEYS) this.entries.clear();
  }
}
