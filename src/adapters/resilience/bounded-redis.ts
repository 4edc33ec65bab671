import { Redis } from 'ioredis';

export interface BoundedRedisOptions {
  /** A command not answered within this fails, so its caller can fall back (default 150 ms). */
  commandTimeoutMs?: number;
  /** After a failure, Redis is skipped for this long (default 5 s). */
  breakMs?: number;
  now?: () => number;
}

/**
 * A Redis connection for a helper the gateway can do without (the rate and concurrency limiters): no
 * offline queue (a command while disconnected fails at once), a short command time-out, nothing resent,
 * a reconnect in the background at most every 5 s, and after any failure Redis is skipped for `breakMs`
 * so each caller counts in its own memory meanwhile. No caller waits longer than one time-out for Redis.
 *
 * The skip is a plain window, not the half-open `CircuitBreaker`: once it ends every call tries Redis
 * again, rather than one probe while the rest still count in memory.
 */
export class BoundedRedis {
  readonly client: Redis;
  readonly #breakMs: number;
  readonly #now: () => number;
  #skipUntil = 0;
  /** Helpers using this connection (share/release): the last release ends it. */
  #users = 0;

  constructor(url: string, options: BoundedRedisOptions = {}) {
    this.#breakMs = options.breakMs ?? 5_000;
    this.#now = options.now ?? Date.now;
    this.client = new Redis(url, {
      enableOfflineQueue: false,
      commandTimeout: options.commandTimeoutMs ?? 150,
      maxRetriesPerRequest: 0,
      autoResendUnfulfilledCommands: false,
      connectTimeout: 2_000,
      retryStrategy: (times) => Math.min(times * 250, 5_000),
    });
    // Failures surface through the commands; an unhandled 'error' event would end the process.
    this.client.on('error', () => {});
  }

  /** True when a command can be sent now (connected), whether or not Redis is being skipped. */
  get ready(): boolean {
    return this.client.status === 'ready';
  }

  /** True while callers should use their fallback: Redis failed within `breakMs`, or is not connected. */
  get skipped(): boolean {
    return this.#now() < this.#skipUntil || !this.ready;
  }

  /** Records a failed command: Redis is skipped for `breakMs` from now. */
  failed(): void {
    this.#skipUntil = this.#now() + this.#breakMs;
  }

  /** Resolves once connected, or after `timeoutMs` whatever the state (a start waits this long at most). */
  async connected(timeoutMs: number): Promise<void> {
    if (this.ready) return;
    await new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.client.off('ready', done);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      this.client.once('ready', done);
    });
  }

  /** One more helper uses this connection (and its skip window: a failure seen by one skips Redis for all). */
  share(): this {
    this.#users += 1;
    return this;
  }

  /** A helper is done with it; the last one ends the connection. */
  release(): void {
    this.#users -= 1;
    if (this.#users <= 0) this.client.disconnect();
  }
}
