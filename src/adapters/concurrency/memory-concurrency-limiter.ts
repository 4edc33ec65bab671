import {
  type ConcurrencyLease,
  type ConcurrencyLimiter,
  type ConcurrencyVerdict,
  DEFAULT_LEASE_MS,
  DEFAULT_RENEW_EVERY_MS,
  type LeaseTimings,
} from '../../ports/concurrency-limiter.port.ts';

export interface MemoryConcurrencyLimiterOptions extends LeaseTimings {
  now?: () => number;
}

/**
 * Embedded mode (and the scale-out fallback): the leases of this process, per key. Synchronous inside,
 * so a burst on one process cannot pass the cap; leases expire like the Redis ones, so a release that
 * never comes (a bug, not a crash: a crash takes this memory with it) costs a slot for `leaseMs` only.
 * Memory is bounded by the leases held: a key's entry goes with its last lease.
 */
export class MemoryConcurrencyLimiter implements ConcurrencyLimiter {
  /** key → lease number → expiry (ms). */
  readonly #held = new Map<string, Map<number, number>>();
  readonly #leaseMs: number;
  readonly #renewEveryMs: number;
  readonly #now: () => number;
  #next = 0;
  #renewTimer: NodeJS.Timeout | undefined;

  constructor(options: MemoryConcurrencyLimiterOptions = {}) {
    this.#leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    this.#renewEveryMs = options.renewEveryMs ?? DEFAULT_RENEW_EVERY_MS;
    this.#now = options.now ?? Date.now;
  }

  async acquire(key: string, max: number): Promise<ConcurrencyVerdict> {
    return this.acquireNow(key, max);
  }

  acquireNow(key: string, max: number): ConcurrencyVerdict {
    const now = this.#now();
    let leases = this.#held.get(key);
    if (leases) for (const [id, expiresAt] of leases) if (expiresAt <= now) leases.delete(id);
    const held = leases?.size ?? 0;
    if (held >= max) {
      if (leases && leases.size === 0) this.#held.delete(key);
      return { granted: false, held };
    }
    if (!leases) {
      leases = new Map();
      this.#held.set(key, leases);
    }
    const id = ++this.#next;
    leases.set(id, now + this.#leaseMs);
    this.#startRenewing();
    return { granted: true, lease: this.#lease(key, id) };
  }

  async close(): Promise<void> {
    this.#stopRenewing();
    this.#held.clear();
  }

  #lease(key: string, id: number): ConcurrencyLease {
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        const leases = this.#held.get(key);
        if (!leases) return;
        leases.delete(id);
        if (leases.size === 0) this.#held.delete(key);
        if (this.#held.size === 0) this.#stopRenewing();
      },
    };
  }

  /** One timer for every lease, running only while some are held. */
  #startRenewing(): void {
    if (this.#renewTimer) return;
    this.#renewTimer = setInterval(() => this.#renew(), this.#renewEveryMs);
    this.#renewTimer.unref();
  }

  #stopRenewing(): void {
    clearInterval(this.#renewTimer);
    this.#renewTimer = undefined;
  }

  #renew(): void {
    const now = this.#now();
    const expiresAt = now + this.#leaseMs;
    for (const [key, leases] of this.#held) {
      // An expired lease stays expired: its slot may have been given away already.
      for (const [id, at] of leases) {
        if (at <= now) leases.delete(id);
        else leases.set(id, expiresAt);
      }
      if (leases.size === 0) this.#held.delete(key);
    }
    if (this.#held.size === 0) this.#stopRenewing();
  }
}
