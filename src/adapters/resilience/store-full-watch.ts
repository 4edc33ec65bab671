import type { Logger } from 'pino';
import { formatBytes, freeBytes, MIN_FREE_BYTES } from '../fs/data-dir-space.ts';

/** After the last "disk full" a store answered, readiness stays 503 this long (PostgreSQL's disk cannot be measured from here). */
const HOLD_MS = 30_000;

export interface StoreFullWatchOptions {
  logger: Logger;
  /** DATA_DIR when something lives there (the SQLite store, local files): its free space is measured. */
  dataDir: string | undefined;
  /** The database is PostgreSQL: its disk is known only by its "disk full" answers, held for HOLD_MS. */
  remoteDatabase: boolean;
  now?: () => number;
}

/**
 * Knows whether the store's disk is full: the embedded store's by the free space under DATA_DIR, any
 * store's by the "disk full" answers requests met (`noticed`). Readiness asks `check`, so a balancer
 * stops sending traffic; the log says so once when the store fills and once when it has room again,
 * never once per refused request (issue 29: 1,788 answers in 20 s).
 */
export class StoreFullWatch {
  readonly #logger: Logger;
  readonly #dataDir: string | undefined;
  readonly #remoteDatabase: boolean;
  readonly #now: () => number;
  #lastSeen: number | undefined;
  #full = false;

  constructor(options: StoreFullWatchOptions) {
    this.#logger = options.logger;
    this.#dataDir = options.dataDir;
    this.#remoteDatabase = options.remoteDatabase;
    this.#now = options.now ?? Date.now;
  }

  /** A request or job met a "disk full" from the store (db-errors.ts, isStoreFull). */
  noticed(): void {
    this.#lastSeen = this.#now();
    this.#enter(this.#dataDir === undefined ? 'the database answered "disk full"' : `a write found no space left (the database's disk, or DATA_DIR ${this.#dataDir})`);
  }

  /** Readiness: throws a sentence while the store is full. */
  async check(): Promise<void> {
    const problem = await this.#problem();
    if (problem !== undefined) {
      this.#enter(problem);
      throw new Error(problem);
    }
    if (this.#full) {
      this.#full = false;
      this.#lastSeen = undefined;
      this.#logger.info('the store has room again: writes are answered and /readyz says ready');
    }
  }

  async #problem(): Promise<string | undefined> {
    // A disk that is measured is ready again the moment it has room; PostgreSQL's only after a quiet HOLD_MS.
    if (this.#dataDir !== undefined) {
      const free = await freeBytes(this.#dataDir);
      if (free < MIN_FREE_BYTES) return `DATA_DIR ${this.#dataDir} is full: ${formatBytes(free)} free (at least ${formatBytes(MIN_FREE_BYTES)} needed)`;
    }
    if (this.#remoteDatabase && this.#lastSeen !== undefined && this.#now() - this.#lastSeen < HOLD_MS) {
      return `the store answered "disk full" ${Math.round((this.#now() - this.#lastSeen) / 1000)} s ago`;
    }
    return undefined;
  }

  #enter(problem: string): void {
    if (this.#full) return;
    this.#full = true;
    this.#logger.error({ problem }, 'the store is full: writes are answered 507 and /readyz 503 until there is room');
  }
}
