import type { RateLimit, RateLimiter, RateVerdict } from '../../ports/rate-limiter.port.ts';
import { BoundedRedis, type BoundedRedisOptions } from '../resilience/bounded-redis.ts';
import { MemoryRateLimiter } from './memory-rate-limiter.ts';

/** Counts and starts the window on the first event; returns {count, milliseconds left}. */
const HIT_SCRIPT = `local n = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return {n, ttl}`;

const PEEK_SCRIPT = `local n = tonumber(redis.call('GET', KEYS[1]) or '0')
local ttl = redis.call('PTTL', KEYS[1])
return {n, ttl}`;

export interface RedisRateLimiterOptions extends BoundedRedisOptions {
  /** Prepended to every key (the deployment's SWITCHBOARD_REDIS_PREFIX). */
  prefix?: string;
}

/**
 * Scale-out mode: fixed windows in Redis, shared by every process. Redis is a helper here, never a
 * dependency (see `BoundedRedis`): while it is skipped, this process counts in its memory instead and
 * each process enforces the limit alone (N processes allow N times the budget); no request waits
 * longer than one command time-out for, or fails because of, Redis.
 */
export class RedisRateLimiter implements RateLimiter {
  readonly #redis: BoundedRedis;
  readonly #prefix: string;
  readonly #fallback: MemoryRateLimiter;

  /** `redis`: a URL to open a connection of its own, or a connection shared with another helper (the last to close ends it). */
  constructor(redis: string | BoundedRedis, options: RedisRateLimiterOptions = {}) {
    this.#prefix = `${options.prefix ?? 'switchboard:'}rl:`;
    this.#fallback = new MemoryRateLimiter(options.now ?? Date.now);
    this.#redis = (typeof redis === 'string' ? new BoundedRedis(redis, options) : redis).share();
  }

  /** True while requests are counted in memory because Redis failed recently or is not connected. */
  get degraded(): boolean {
    return this.#redis.skipped;
  }

  /**
   * Resolves once connected, or after `timeoutMs` whatever the state (a start waits this long at most
   * for Redis; until it connects, counting happens in memory).
   */
  connected(timeoutMs: number): Promise<void> {
    return this.#redis.connected(timeoutMs);
  }

  hit(key: string, limit: RateLimit): Promise<RateVerdict> {
    return this.#run(HIT_SCRIPT, key, limit, () => this.#fallback.hitNow(key, limit), true);
  }

  peek(key: string, limit: RateLimit): Promise<RateVerdict> {
    return this.#run(PEEK_SCRIPT, key, limit, () => this.#fallback.peekNow(key, limit), false);
  }

  async close(): Promise<void> {
    this.#redis.release();
    await this.#fallback.close();
  }

  async #run(script: string, key: string, limit: RateLimit, fallback: () => RateVerdict, counting: boolean): Promise<RateVerdict> {
    if (this.degraded) return fallback();
    try {
      const reply = await this.#redis.client.eval(script, 1, this.#prefix + key, String(limit.windowMs));
      const [count, ttl] = parseReply(reply);
      const retryAfterMs = count === 0 ? 0 : Math.max(0, ttl);
      return { allowed: counting ? count <= limit.max : count < limit.max, count, retryAfterMs };
    } catch {
      this.#redis.failed();
      return fallback();
    }
  }
}

function parseReply(reply: unknown): [number, number] {
  if (!Array.isArray(reply) || reply.length !== 2) throw new Error('unexpected reply from the rate-limit script');
  return [Number(reply[0]), Number(reply[1])];
}
