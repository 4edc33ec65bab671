import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { MemoryRateLimiter } from '../../src/adapters/rate-limit/memory-rate-limiter.ts';
import { RedisRateLimiter } from '../../src/adapters/rate-limit/redis-rate-limiter.ts';
import type { RateLimiter } from '../../src/ports/rate-limiter.port.ts';
import { serviceSkipReason, TEST_REDIS_URL } from '../support/services.ts';
import { refusedRedisUrl, startSilentRedis } from '../support/silent-redis.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits until the Redis client is connected, so the first commands are not counted in memory. */
async function ready(limiter: RateLimiter): Promise<void> {
  if (!(limiter instanceof RedisRateLimiter)) return;
  const deadline = Date.now() + 3000;
  while (limiter.degraded && Date.now() < deadline) await sleep(10);
  assert.equal(limiter.degraded, false, 'connected to Redis');
}

for (const kind of ['memory', 'redis'] as const) {
  describe(`rate limiter [${kind}]`, async () => {
    const skip = kind === 'redis' ? await serviceSkipReason('Redis', TEST_REDIS_URL) : undefined;
    const prefix = `sbtest:${randomBytes(4).toString('hex')}:`;
    const make = (): RateLimiter => (kind === 'memory' ? new MemoryRateLimiter() : new RedisRateLimiter(TEST_REDIS_URL, { prefix }));

    test('allows max events per window, refuses the next with the time left, and counts per key', { skip }, async () => {
      const limiter = make();
      await ready(limiter);
      const limit = { max: 3, windowMs: 60_000 };
      const verdicts = [];
      for (let i = 0; i < 5; i++) verdicts.push(await limiter.hit('a', limit));
      assert.deepEqual(verdicts.map((v) => v.allowed), [true, true, true, false, false]);
      assert.deepEqual(verdicts.map((v) => v.count), [1, 2, 3, 4, 5]);
      const refused = verdicts[3];
      assert.ok(refused && refused.retryAfterMs > 55_000 && refused.retryAfterMs <= 60_000, `retryAfterMs ${refused?.retryAfterMs}`);
      assert.equal((await limiter.hit('b', limit)).allowed, true, 'another key has its own window');
      await limiter.close();
    });

    test('peek says whether one more would pass, without counting', { skip }, async () => {
      const limiter = make();
      await ready(limiter);
      const limit = { max: 2, windowMs: 60_000 };
      assert.deepEqual(await limiter.peek('p', limit), { allowed: true, count: 0, retryAfterMs: 0 });
      await limiter.hit('p', limit);
      assert.equal((await limiter.peek('p', limit)).allowed, true);
      assert.equal((await limiter.peek('p', limit)).count, 1, 'peeking counted nothing');
      await limiter.hit('p', limit);
      const full = await limiter.peek('p', limit);
      assert.equal(full.allowed, false);
      assert.ok(full.retryAfterMs > 0);
      await limiter.close();
    });

    test('a window ends: the key may go on', { skip }, async () => {
      const limiter = make();
      await ready(limiter);
      const limit = { max: 1, windowMs: 150 };
      assert.equal((await limiter.hit('w', limit)).allowed, true);
      assert.equal((await limiter.hit('w', limit)).allowed, false);
      await sleep(200);
      assert.equal((await limiter.hit('w', limit)).allowed, true);
      await limiter.close();
    });

    test('concurrent hits never let more than max through', { skip }, async () => {
      const limiter = make();
      await ready(limiter);
      const limit = { max: 10, windowMs: 60_000 };
      const verdicts = await Promise.all(Array.from({ length: 50 }, () => limiter.hit('c', limit)));
      assert.equal(verdicts.filter((v) => v.allowed).length, 10);
      await limiter.close();
    });
  });
}

describe('rate limiter [redis unreachable]', () => {
  test('falls back to memory at once: limits still hold and no call waits on Redis', async () => {
    // A port that accepts nothing: connections are refused.
    const limiter = new RedisRateLimiter(await refusedRedisUrl(), { prefix: 'sbtest:down:' });
    const limit = { max: 3, windowMs: 60_000 };
    const started = performance.now();
    const verdicts = [];
    for (let i = 0; i < 5; i++) verdicts.push(await limiter.hit('k', limit));
    const elapsed = performance.now() - started;
    assert.deepEqual(verdicts.map((v) => v.allowed), [true, true, true, false, false]);
    // Without the fallback these calls would wait for a connection (until the test's time-out): the bound
    // tells that from a busy machine.
    assert.ok(elapsed < 5000, `five calls took ${elapsed.toFixed(0)} ms`);
    assert.equal((await limiter.peek('k', limit)).allowed, false);
    assert.equal(limiter.degraded, true);
    await limiter.close();
  });

  test('a Redis that never answers costs at most the command time-out, then the breaker skips it', async () => {
    // Answers the client's ready check and nothing else: every later command would hang without the time-out.
    const silent = await startSilentRedis();
    const limiter = new RedisRateLimiter(silent.url, { prefix: 'sbtest:hang:', commandTimeoutMs: 100, breakMs: 60_000 });
    try {
      const deadline = Date.now() + 3000;
      while (limiter.degraded && Date.now() < deadline) await sleep(10);
      assert.equal(limiter.degraded, false, 'the fake passed the ready check');
      const limit = { max: 2, windowMs: 60_000 };
      const times: number[] = [];
      const verdicts = [];
      for (let i = 0; i < 4; i++) {
        const t = performance.now();
        verdicts.push(await limiter.hit('h', limit));
        times.push(performance.now() - t);
      }
      assert.deepEqual(verdicts.map((v) => v.allowed), [true, true, false, false]);
      // The upper bound only tells a time-out from a hang: a busy machine may take longer than 100 ms.
      assert.ok((times[0] ?? 0) >= 90 && (times[0] ?? 0) < 5000, `the first call waited for the time-out: ${times[0]?.toFixed(0)} ms`);
      assert.equal(limiter.degraded, true, 'the breaker is open: Redis is skipped');
      assert.equal(silent.unanswered(), 1, 'later calls sent nothing to Redis, so they did not wait for it');
    } finally {
      await limiter.close();
      await silent.close();
    }
  });
});
