/**
 * The traffic tally shared through Redis (src/ports/traffic-tally.port.ts): each process counts in
 * memory and adds its counts to one hash per minute (`<prefix>traffic:<minute>`, subject → calls)
 * every `flushMs`, so a call costs no Redis command; a read sums the last 61 minutes' hashes, plus what
 * this process has not sent yet. Redis is a helper (see BoundedRedis): while it is away the counts
 * wait (an hour of them at most) and a read answers from this process's own memory.
 */
import type { Logger } from 'pino';
import type { TrafficTally } from '../../ports/traffic-tally.port.ts';
import type { BoundedRedis } from '../resilience/bounded-redis.ts';
import { MemoryTrafficTally, minuteOf, TALLY_MINUTES } from './memory-traffic-tally.ts';

export interface RedisTrafficTallyOptions {
  prefix?: string;
  flushMs?: number;
  logger?: Logger;
}

/** The hashes outlive the hour they are read for, a little. */
const KEY_TTL_S = 2 * 60 * 60;

export class RedisTrafficTally implements TrafficTally {
  readonly #redis: BoundedRedis;
  readonly #prefix: string;
  readonly #logger: Logger | undefined;
  readonly #local = new MemoryTrafficTally();
  /** Minute → subject → calls not yet added to Redis. */
  #unsent = new Map<number, Map<string, number>>();
  #flushing: Promise<void> | undefined;
  readonly #timer: NodeJS.Timeout;
  #closed = false;

  /** `redis`: the gateway's shared connection (released at close). */
  constructor(redis: BoundedRedis, options: RedisTrafficTallyOptions = {}) {
    this.#redis = redis.share();
    this.#prefix = `${options.prefix ?? 'switchboard:'}traffic:`;
    this.#logger = options.logger;
    this.#timer = setInterval(() => void this.flush(), options.flushMs ?? 2_000);
    this.#timer.unref();
  }

  count(subject: string, now: number = Date.now()): void {
    this.#local.count(subject, now);
    const minute = minuteOf(now);
    let counts = this.#unsent.get(minute);
    if (!counts) {
      counts = new Map();
      this.#unsent.set(minute, counts);
    }
    counts.set(subject, (counts.get(subject) ?? 0) + 1);
  }

  async lastHour(subjects: readonly string[], now: number = Date.now()): Promise<Map<string, number>> {
    if (this.#redis.skipped || subjects.length === 0) return this.#local.lastHour(subjects, now);
    const newest = minuteOf(now);
    const pipeline = this.#redis.client.pipeline();
    for (let minute = newest - (TALLY_MINUTES - 1); minute <= newest; minute++) pipeline.hmget(this.#prefix + minute, ...subjects);
    try {
      const replies = (await pipeline.exec()) ?? [];
      const totals = new Map(subjects.map((s) => [s, 0]));
      for (const [error, values] of replies) {
        if (error) throw error;
        (values as Array<string | null>).forEach((value, i) => {
          const subject = subjects[i] as string;
          if (value !== null) totals.set(subject, (totals.get(subject) ?? 0) + Number(value));
        });
      }
      for (const [minute, counts] of this.#unsent) {
        if (minute < newest - (TALLY_MINUTES - 1)) continue;
        for (const subject of subjects) totals.set(subject, (totals.get(subject) ?? 0) + (counts.get(subject) ?? 0));
      }
      return totals;
    } catch (error) {
      this.#redis.failed();
      this.#logger?.warn({ err: error }, 'the shared traffic counts could not be read; answering with this process’s own');
      return this.#local.lastHour(subjects, now);
    }
  }

  /** Adds what this process counted to Redis; what does not go out waits for the next time. */
  async flush(now: number = Date.now()): Promise<void> {
    if (this.#flushing) return this.#flushing;
    // Counts older than the hour read no more: not worth keeping through a long outage.
    for (const minute of this.#unsent.keys()) if (minute < minuteOf(now) - TALLY_MINUTES) this.#unsent.delete(minute);
    if (this.#unsent.size === 0 || this.#redis.skipped) return;
    const sending = this.#unsent;
    this.#unsent = new Map();
    const pipeline = this.#redis.client.pipeline();
    for (const [minute, counts] of sending) {
      for (const [subject, calls] of counts) pipeline.hincrby(this.#prefix + minute, subject, calls);
      pipeline.expire(this.#prefix + minute, KEY_TTL_S);
    }
    this.#flushing = (async () => {
      try {
        const replies = (await pipeline.exec()) ?? [];
        if (replies.some(([error]) => error)) throw replies.find(([error]) => error)?.[0];
      } catch (error) {
        // A pipeline that failed part-way may have added some: counting a few calls twice after a
        // Redis failure is the lesser error for a share of traffic than dropping them.
        this.#redis.failed();
        for (const [minute, counts] of sending) {
          const kept = this.#unsent.get(minute) ?? new Map<string, number>();
          for (const [subject, calls] of counts) kept.set(subject, (kept.get(subject) ?? 0) + calls);
          this.#unsent.set(minute, kept);
        }
        this.#logger?.debug({ err: error }, 'traffic counts stay in memory until Redis answers');
      } finally {
        this.#flushing = undefined;
      }
    })();
    return this.#flushing;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#timer);
    await this.flush();
    this.#redis.release();
  }
}
