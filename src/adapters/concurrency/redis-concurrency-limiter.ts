import { randomBytes } from 'node:crypto';
import {
  type ConcurrencyLease,
  type ConcurrencyLimiter,
  type ConcurrencyVerdict,
  DEFAULT_LEASE_MS,
  DEFAULT_RENEW_EVERY_MS,
  type LeaseTimings,
} from '../../ports/concurrency-limiter.port.ts';
import { BoundedRedis, type BoundedRedisOptions } from '../resilience/bounded-redis.ts';
import { MemoryConcurrencyLimiter } from './memory-concurrency-limiter.ts';

/**
 * A sorted set per key: lease ids scored by their expiry. Expired leases go first, then the slot is
 * taken if one is free; the set itself lives as long as its longest lease, so an abandoned key leaves
 * nothing behind. Returns {granted 0|1, held}.
 */
const ACQUIRE_SCRIPT = `redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
local held = redis.call('ZCARD', KEYS[1])
if held >= tonumber(ARGV[2]) then return {0, held} end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[4])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < tonumber(ARGV[5]) then redis.call('PEXPIRE', KEYS[1], ARGV[5]) end
return {1, held + 1}`;

/**
 * Moves the expiry of the leases this process still holds. One that expired meanwhile (Redis was away
 * longer than a lease) is put back: its request is still running, so it counts, even if that puts the
 * key over its limit until some end; no new request is admitted until then.
 */
const RENEW_SCRIPT = `for i = 3, #ARGV do redis.call('ZADD', KEYS[1], ARGV[1], ARGV[i]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < tonumber(ARGV[2]) then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 1`;

/** What the limiter says about Redis coming and going (a pino logger fits). */
export interface FallbackLog {
  warn(details: { reason: string }, message: string): void;
  info(message: string): void;
}

export interface RedisConcurrencyLimiterOptions extends LeaseTimings, BoundedRedisOptions {
  /** Prepended to every key (the deployment's SWITCHBOARD_REDIS_PREFIX). */
  prefix?: string;
  /** Told once when the limiter falls back to memory and once when Redis is back. */
  logger?: FallbackLog;
}

/**
 * Scale-out mode: the leases of every process in Redis. Redis is a helper, never a dependency (see
 * `BoundedRedis`): while it is skipped, slots are counted in this process's memory (each process then
 * enforces the cap alone: N processes allow N times it). No request waits longer than one command
 * time-out for Redis, and none fails because of it. The leases granted from memory that are still
 * held when Redis answers again are written into it (at the next renewal or acquire), so the shared
 * count includes the requests the outage let in until they end.
 *
 * Expiry scores come from this process's clock: a skew between processes of a fraction of a second
 * moves a crashed process's slots' return by as much, nothing else.
 */
export class RedisConcurrencyLimiter implements ConcurrencyLimiter {
  readonly #redis: BoundedRedis;
  readonly #prefix: string;
  readonly #fallback: MemoryConcurrencyLimiter;
  readonly #leaseMs: number;
  readonly #renewEveryMs: number;
  readonly #logger: FallbackLog | undefined;
  readonly #now: () => number;
  /** Lease ids are unique across processes: this instance's random part, then a counter. */
  readonly #instance = randomBytes(6).toString('hex');
  /** Redis key → ids of the leases this process holds there (what renewal and close work on). */
  readonly #held = new Map<string, Set<string>>();
  /** Redis key → ids of leases granted from memory while Redis was skipped, not yet written into it. */
  readonly #unshared = new Map<string, Set<string>>();
  /**
   * A write of them is on its way: one at a time, since a second one's answer would find the ids the
   * first had moved to `#held` and take them for released.
   */
  #sharing = false;
  #next = 0;
  #fellBack = false;
  #renewTimer: NodeJS.Timeout | undefined;

  /** `redis`: a URL to open a connection of its own, or a connection shared with another helper (the last to close ends it). */
  constructor(redis: string | BoundedRedis, options: RedisConcurrencyLimiterOptions = {}) {
    this.#prefix = `${options.prefix ?? 'switchboard:'}cc:`;
    this.#leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    this.#renewEveryMs = options.renewEveryMs ?? DEFAULT_RENEW_EVERY_MS;
    this.#logger = options.logger;
    this.#now = options.now ?? Date.now;
    this.#fallback = new MemoryConcurrencyLimiter({ leaseMs: this.#leaseMs, renewEveryMs: this.#renewEveryMs, now: this.#now });
    this.#redis = (typeof redis === 'string' ? new BoundedRedis(redis, options) : redis).share();
  }

  /** True while slots are counted in memory because Redis failed recently or is not connected. */
  get degraded(): boolean {
    return this.#redis.skipped;
  }

  /** Resolves once connected, or after `timeoutMs` whatever the state (until then, memory counts). */
  connected(timeoutMs: number): Promise<void> {
    return this.#redis.connected(timeoutMs);
  }

  async acquire(key: string, max: number): Promise<ConcurrencyVerdict> {
    if (max <= 0) return { granted: false, held: 0 };
    if (this.degraded) return this.#fallBack(key, max, 'Redis is not connected');
    const redisKey = this.#prefix + key;
    const id = `${this.#instance}:${++this.#next}`;
    let granted: boolean;
    let held: number;
    try {
      const now = this.#now();
      [granted, held] = parseReply(await this.#redis.client.eval(ACQUIRE_SCRIPT, 1, redisKey, String(now), String(max), String(now + this.#leaseMs), id, String(this.#leaseMs)));
    } catch (error) {
      this.#redis.failed();
      // A timed-out script may still run once Redis answers; this follows it on the same connection
      // and takes back the slot it would have taken, so a slow Redis does not leak leases.
      if (this.#redis.ready) this.#redis.client.zrem(redisKey, id).catch(() => undefined);
      return this.#fallBack(key, max, error instanceof Error ? error.message : String(error));
    }
    this.#recovered();
    if (!granted) return { granted: false, held };
    this.#hold(redisKey, id);
    return { granted: true, lease: this.#lease(redisKey, id) };
  }

  async close(): Promise<void> {
    clearInterval(this.#renewTimer);
    this.#renewTimer = undefined;
    if (this.#redis.ready) {
      const pipeline = this.#redis.client.pipeline();
      for (const [redisKey, ids] of this.#held) pipeline.zrem(redisKey, ...ids);
      for (const [redisKey, ids] of this.#unshared) pipeline.zrem(redisKey, ...ids);
      // Bounded by the command time-out; leases left behind expire by themselves.
      await pipeline.exec().catch(() => undefined);
    }
    this.#held.clear();
    this.#unshared.clear();
    this.#redis.release();
    await this.#fallback.close();
  }

  #fallBack(key: string, max: number, reason: string): ConcurrencyVerdict {
    if (!this.#fellBack) {
      this.#fellBack = true;
      this.#logger?.warn({ reason }, 'concurrency limits: Redis unavailable, each process enforces them alone until it is back');
    }
    const verdict = this.#fallback.acquireNow(key, max);
    if (!verdict.granted) return verdict;
    const redisKey = this.#prefix + key;
    const id = `${this.#instance}:${++this.#next}`;
    addTo(this.#unshared, redisKey, id);
    this.#startRenewing();
    const shared = this.#lease(redisKey, id);
    return {
      granted: true,
      lease: {
        release: () => {
          verdict.lease.release();
          shared.release();
        },
      },
    };
  }

  #recovered(): void {
    if (this.#unshared.size > 0) this.#share();
    if (!this.#fellBack) return;
    this.#fellBack = false;
    this.#logger?.info('concurrency limits: Redis is back, shared across processes again');
  }

  /**
   * Writes the leases granted from memory into Redis, whatever the limit (their requests are running),
   * so that until they end the other processes count them; from then on they are renewed and released
   * as the others. A lease released while this was on its way is taken out again.
   */
  #share(): void {
    if (this.#sharing) return;
    this.#sharing = true;
    const now = this.#now();
    const writes = [...this.#unshared].map(([redisKey, ids]) => {
      const sent = [...ids];
      return this.#redis.client.eval(RENEW_SCRIPT, 1, redisKey, String(now + this.#leaseMs), String(this.#leaseMs), ...sent).then(
        () => {
          const still = this.#unshared.get(redisKey);
          for (const id of sent) {
            if (still?.delete(id)) this.#hold(redisKey, id);
            else if (this.#redis.ready) this.#redis.client.zrem(redisKey, id).catch(() => undefined);
          }
          if (still?.size === 0) this.#unshared.delete(redisKey);
        },
        () => this.#redis.failed(),
      );
    });
    void Promise.all(writes).finally(() => {
      this.#sharing = false;
    });
  }

  #hold(redisKey: string, id: string): void {
    addTo(this.#held, redisKey, id);
    this.#startRenewing();
  }

  #startRenewing(): void {
    if (!this.#renewTimer) {
      this.#renewTimer = setInterval(() => this.#renew(), this.#renewEveryMs);
      this.#renewTimer.unref();
    }
  }

  #lease(redisKey: string, id: string): ConcurrencyLease {
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        removeFrom(this.#held, redisKey, id);
        removeFrom(this.#unshared, redisKey, id);
        if (this.#held.size === 0 && this.#unshared.size === 0) {
          clearInterval(this.#renewTimer);
          this.#renewTimer = undefined;
        }
        // Not renewed any more, so the lease expires by itself if this does not reach Redis.
        if (this.#redis.ready) this.#redis.client.zrem(redisKey, id).catch(() => undefined);
      },
    };
  }

  /** One script call per key with leases held here (bounded by the requests in flight). */
  #renew(): void {
    if (this.degraded) return;
    this.#recovered();
    const now = this.#now();
    for (const [redisKey, ids] of this.#held) {
      this.#redis.client.eval(RENEW_SCRIPT, 1, redisKey, String(now + this.#leaseMs), String(this.#leaseMs), ...ids).catch(() => {
        this.#redis.failed();
      });
    }
  }
}

function addTo(sets: Map<string, Set<string>>, key: string, id: string): void {
  let ids = sets.get(key);
  if (!ids) {
    ids = new Set();
    sets.set(key, ids);
  }
  ids.add(id);
}

function removeFrom(sets: Map<string, Set<string>>, key: string, id: string): void {
  const ids = sets.get(key);
  ids?.delete(id);
  if (ids?.size === 0) sets.delete(key);
}

function parseReply(reply: unknown): [boolean, number] {
  if (!Array.isArray(reply) || reply.length !== 2) throw new Error('unexpected reply from the concurrency script');
  return [Number(reply[0]) === 1, Number(reply[1])];
}
