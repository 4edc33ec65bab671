/**
 * Caps how many things run at once under a key (an API key's concurrent requests, issue 21 item 15).
 * Embedded: this process's memory, exact. Scale-out: Redis, shared by every process, with this
 * process's memory as the fallback while Redis is away (each process then holds the cap alone).
 *
 * A granted slot is a lease: it lasts `leaseMs` and the limiter renews it while it is held, so the
 * slots of a process that died without releasing come back by themselves.
 */
export interface ConcurrencyLease {
  /** Gives the slot back. Idempotent, never throws, never waits on a remote store for the caller. */
  release(): void;
}

export type ConcurrencyVerdict = { granted: true; lease: ConcurrencyLease } | { granted: false; held: number };

export interface ConcurrencyLimiter {
  /** Takes one of `max` slots under `key`, or says that all of them are held. */
  acquire(key: string, max: number): Promise<ConcurrencyVerdict>;
  /** Stops renewing and gives back every lease still held. */
  close(): Promise<void>;
}

export interface LeaseTimings {
  /** How long a lease lasts unless renewed (default 30 s). */
  leaseMs?: number;
  /** How often held leases are renewed (default 10 s; must be well under `leaseMs`). */
  renewEveryMs?: number;
}

export const DEFAULT_LEASE_MS = 30_000;
export const DEFAULT_RENEW_EVERY_MS = 10_000;
