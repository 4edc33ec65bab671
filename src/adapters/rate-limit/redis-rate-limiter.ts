import { Redis } from 'ioredis';
import type { RateLimit, RateLimiter, RateVerdict } from '../../ports/rate-limiter.port.ts';
import { MemoryRateLimiter } from './memory-rate-limiter.ts';

/** Counts and starts the window on the first event; returns {count, milliseconds left}. */
const HIT_SCRIPT = `local n = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return {n, ttl}`;

const PEEK_SCRIPT = `local n = tonumber(redis.call('GET', KEYS[1]) or '0')
local ttl = redis.call('PTTL', KEYS[1])
return {n, ttl}`;

export interface RedisRateLimiterOptions {
  /** Prepended to every key (the deployment's SWITCHBOARD_REDIS_PREFIX). */
  prefix?: string;
  /** A command not answered within this fails over to memory (default 150 ms). */
  commandTimeoutMs?: number;
  /** After a failure, Redis is not tried again for this long (default 5 s). */
  breakMs?: number;
  now?: () => number;
}

/**
 * Scale-out mode: fixed windows in Redis, shared by every process. Redis is a helper here, never a
 * dependency: the client has no offline queue (a command while disconnected fails at once) and a
 * short command time-out, and after any failure a circuit breaker skips Redis for a few seconds and
 * counts in this process's memory instead. While it is open, each process enforces the limit alone
 * (N processes allow N times the budget); no request waits for, or fails because of, Redis.
 */
export class RedisRateLimiter implements RateLimiter {
  readonly #client: Redis;
  readonly #prefix: string;
  readonly #fallback: MemoryRateLimiter;
  readonly #breakMs: number;
  readonly #now: () => number;
  #openUntil = 0;

  constructor(url: string, options: RedisRateLimiterOptions = {}) {
    this.#prefix = `${options.prefix ?? 'switchboard:'}rl:`;
    this.#breakMs = options.breakMs ?? 5_000;
    this.#now = options.now ?? Date.now;
    this.#fallback = new MemoryRateLimiter(this.#now);
    this.#client = new Redis(url, {
      enableOfflineQueue: false,
      commandTimeout: options.commandTimeoutMs ?? 150,
      maxRetriesPerRequest: 0,
      autoResendUnfulfilledCommands: false,
      connectTimeout: 2_000,
      // Keep trying to reconnect in the background, at most every 5 s.
      retryStrategy: (times) => Math.min(times * 250, 5_000),
    });
    // Failures surface through the commands; an unhandled 'error' event would end the process.
    this.#client.on('error', () => {});
  }

  /** True while requests are counted in memory because Redis failed recently or is not connected. */
  get degraded(): boolean {
    return this.#now() < this.#openUntil || this.#client.status !== 'ready';
  }

  /**
   * Resolves once connected, or after `timeoutMs` whatever the state (a start waits this long at most
   * for Redis; until it connects, counting happens in memory).
   */
  async connected(timeoutMs: number): Promise<void> {
    if (this.#client.status === 'ready') return;
    await new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.#client.off('ready', done);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      this.#client.once('ready', done);
    });
  }

  hit(key: string, limit: RateLimit): Promise<RateVerdict> {
    return this.#run(HIT_SCRIPT, key, limit, () => this.#fallback.hitNow(key, limit), true);
  }

  peek(key: string, limit: RateLimit): Promise<RateVerdict> {
    return this.#run(PEEK_SCRIPT, key, limit, () => this.#fallback.peekNow(key, limit), false);
  }

  async close(): Promise<void> {
    this.#client.disconnect();
    await this.#fallback.close();
  }

  async #run(script: string, key: string, limit: RateLimit, fallback: () => RateVerdict, counting: boolean): Promise<RateVerdict> {
    if (this.degraded) return fallback();
    try {
      const reply = await this.#client.eval(script, 1, this.#prefix + key, String(limit.windowMs));
      const [count, ttl] = parseReply(reply);
      const retryAfterMs = count === 0 ? 0 : Math.max(0, ttl);
      return { allowed: counting ? count <= limit.max : count < limit.max, count, retryAfterMs };
    } catch {
      this.#openUntil = this.#now() + this.#breakMs;
      return fallback();
    }
  }
}

function parseReply(reply: unknown): [number, number] {
  if (!Array.isArray(reply) || reply.length !== 2) throw new Error('unexpected reply from the rate-limit script');
  return [Number(reply[0]), Number(reply[1])];
}
