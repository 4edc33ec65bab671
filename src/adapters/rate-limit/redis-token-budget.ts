import { type TokenBudget, type TokenVerdict, TOKEN_WINDOW_MS, tokenWindowLeftMs, tokenWindowOf } from '../../ports/token-budget.port.ts';
import type { BoundedRedis } from '../resilience/bounded-redis.ts';
import { MemoryTokenBudget } from './memory-token-budget.ts';

/** Adds ARGV[1] when the sum stays within ARGV[2]; answers {taken 1|0, count}. The key lives two minutes. */
const TAKE_SCRIPT = `local used = tonumber(redis.call('GET', KEYS[1]) or '0')
local amount = tonumber(ARGV[1])
if used + amount > tonumber(ARGV[2]) then return {0, used} end
used = redis.call('INCRBY', KEYS[1], amount)
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return {1, used}`;

/** Gives ARGV[1] back to a minute still counted, never below zero. */
const GIVE_BACK_SCRIPT = `local used = tonumber(redis.call('GET', KEYS[1]) or '-1')
if used < 0 then return 0 end
local left = used - tonumber(ARGV[1])
if left < 0 then left = 0 end
redis.call('SET', KEYS[1], left, 'KEEPTTL')
return left`;

export interface RedisTokenBudgetOptions {
  /** Prepended to every key (the deployment's SWITCHBOARD_REDIS_PREFIX). */
  prefix?: string;
  now?: () => number;
}

/**
 * Scale-out mode: each key's minute is one Redis counter (`…tpm:<key>:<minute>`), shared by every
 * process; a take is one script (check and add together, so concurrent takes never pass the budget
 * between them). While Redis is skipped, this process counts in its memory (each process then
 * allows the budget alone), and a give-back of a take counted in memory goes back there.
 */
export class RedisTokenBudget implements TokenBudget {
  readonly #redis: BoundedRedis;
  readonly #prefix: string;
  readonly #now: () => number;
  readonly #fallback: MemoryTokenBudget;
  /** Takes counted in memory (Redis was skipped), by key and minute: their give-backs go there. */
  readonly #inMemory = new Set<string>();

  constructor(redis: BoundedRedis, options: RedisTokenBudgetOptions = {}) {
    this.#prefix = `${options.prefix ?? 'switchboard:'}tpm:`;
    this.#now = options.now ?? Date.now;
    this.#fallback = new MemoryTokenBudget(this.#now);
    this.#redis = redis.share();
  }

  async take(key: string, amount: number, max: number): Promise<TokenVerdict> {
    const now = this.#now();
    const window = tokenWindowOf(now);
    if (!this.#redis.skipped) {
      try {
        const reply = await this.#redis.client.eval(TAKE_SCRIPT, 1, `${this.#prefix}${key}:${window}`, String(amount), String(max), String(2 * TOKEN_WINDOW_MS));
        if (!Array.isArray(reply) || reply.length !== 2) throw new Error('unexpected reply from the token budget script');
        const used = Number(reply[1]);
        return Number(reply[0]) === 1 ? { allowed: true, window, used } : { allowed: false, used, retryAfterMs: tokenWindowLeftMs(now) };
      } catch {
        this.#redis.failed();
      }
    }
    const verdict = this.#fallback.takeNow(key, amount, max);
    if (verdict.allowed) this.#rememberInMemory(key, verdict.window);
    return verdict;
  }

  async giveBack(key: string, amount: number, window: number): Promise<void> {
    if (amount <= 0) return;
    const local = `${key}:${window}`;
    if (this.#inMemory.has(local)) {
      this.#fallback.giveBackNow(key, amount, window);
      return;
    }
    if (this.#redis.skipped) return;
    try {
      await this.#redis.client.eval(GIVE_BACK_SCRIPT, 1, `${this.#prefix}${key}:${window}`, String(amount));
    } catch {
      // A give-back lost only leaves the minute counting more than was used, until it ends.
      this.#redis.failed();
    }
  }

  async close(): Promise<void> {
    this.#redis.release();
    await this.#fallback.close();
  }

  #rememberInMemory(key: string, window: number): void {
    // Bounded: entries of ended minutes are of no use to anyone.
    if (this.#inMemory.size > 10_000) this.#inMemory.clear();
    this.#inMemory.add(`${key}:${window}`);
  }
}
