/**
 * The token budget port (issue 33, item 6) on both backends: a take fits whole or counts nothing,
 * concurrent takes never pass the budget between them, a give-back returns what a request did not use
 * to its own minute only, and two processes' budgets on one Redis are one budget. With Redis away the
 * budget counts in memory at once.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { MemoryTokenBudget } from '../../src/adapters/rate-limit/memory-token-budget.ts';
import { RedisTokenBudget } from '../../src/adapters/rate-limit/redis-token-budget.ts';
import { BoundedRedis } from '../../src/adapters/resilience/bounded-redis.ts';
import { TOKEN_WINDOW_MS, type TokenBudget } from '../../src/ports/token-budget.port.ts';
import { serviceSkipReason, TEST_REDIS_URL } from '../support/services.ts';
import { refusedRedisUrl } from '../support/silent-redis.ts';

for (const kind of ['memory', 'redis'] as const) {
  describe(`token budget [${kind}]`, async () => {
    const skip = kind === 'redis' ? await serviceSkipReason('Redis', TEST_REDIS_URL) : undefined;
    const prefix = `sbtest:${randomBytes(4).toString('hex')}:`;
    // One clock for the whole suite, moved by the tests: minutes are aligned to it.
    let now = Math.ceil(Date.now() / TOKEN_WINDOW_MS) * TOKEN_WINDOW_MS + 1_000;
    const clock = () => now;
    const make = async (): Promise<TokenBudget> => {
      if (kind === 'memory') return new MemoryTokenBudget(clock);
      const redis = new BoundedRedis(TEST_REDIS_URL);
      await redis.connected(3000);
      const budget = new RedisTokenBudget(redis, { prefix, now: clock });
      return budget;
    };

    test('a take fits whole or counts nothing; the refusal says what is counted and when the minute ends', { skip }, async () => {
      const budget = await make();
      const first = await budget.take('a', 600, 1000);
      assert.equal(first.allowed, true);
      assert.equal(first.used, 600);
      const refused = await budget.take('a', 500, 1000);
      assert.deepEqual(refused, { allowed: false, used: 600, retryAfterMs: 59_000 });
      const fits = await budget.take('a', 400, 1000);
      assert.deepEqual([fits.allowed, fits.used], [true, 1000]);
      assert.equal((await budget.take('b', 1000, 1000)).allowed, true, 'another key has its own budget');
      assert.equal((await budget.take('c', 1001, 1000)).allowed, false, 'more than the whole budget never fits');
      await budget.close();
    });

    test('a give-back returns unused tokens to the minute they were taken from, never to a later one', { skip }, async () => {
      const budget = await make();
      const taken = await budget.take('g', 900, 1000);
      assert.ok(taken.allowed);
      await budget.giveBack('g', 850, taken.window);
      const next = await budget.take('g', 950, 1000);
      assert.deepEqual([next.allowed, next.used], [true, 1000], 'the 850 unused came back');
      await budget.giveBack('g', 5000, taken.window);
      assert.equal((await budget.take('g', 1000, 1000)).used, 1000, 'never below zero');
      now += TOKEN_WINDOW_MS;
      const later = await budget.take('g', 1000, 1000);
      assert.ok(later.allowed, 'a new minute starts empty');
      await budget.giveBack('g', 1000, taken.window);
      assert.equal((await budget.take('g', 1, 1000)).allowed, false, 'a give-back to an ended minute changes nothing now');
      await budget.close();
    });

    test('concurrent takes never pass the budget between them', { skip }, async () => {
      const budget = await make();
      const verdicts = await Promise.all(Array.from({ length: 50 }, () => budget.take('c2', 100, 1000)));
      assert.equal(verdicts.filter((v) => v.allowed).length, 10);
      await budget.close();
    });

    if (kind === 'redis') {
      test('two processes on one Redis share one budget', { skip }, async () => {
        const [a, b] = [await make(), await make()];
        assert.equal((await a.take('shared', 700, 1000)).allowed, true);
        const other = await b.take('shared', 400, 1000);
        assert.deepEqual(other.allowed ? 'taken' : other.used, 700, 'the other process sees the first one’s tokens');
        await a.close();
        await b.close();
      });
    }

  });
}

describe('token budget [redis unreachable]', () => {
  test('counts in memory at once, and gives back there', async () => {
    const redis = new BoundedRedis(await refusedRedisUrl());
    const budget = new RedisTokenBudget(redis, { prefix: 'sbtest:tpm-down:' });
    const started = performance.now();
    const taken = await budget.take('k', 800, 1000);
    assert.ok(taken.allowed);
    assert.equal((await budget.take('k', 300, 1000)).allowed, false);
    await budget.giveBack('k', 500, taken.window);
    assert.equal((await budget.take('k', 300, 1000)).allowed, true);
    assert.ok(performance.now() - started < 5000);
    await budget.close();
  });
});
