/**
 * The limiters' one Redis connection (src/adapters/resilience/bounded-redis.ts): a gateway gives the
 * same BoundedRedis to its rate and concurrency limiters; each counts in Redis through it, the first to
 * close leaves it to the other, and the second ends it.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { Redis } from 'ioredis';
import { RedisConcurrencyLimiter } from '../../src/adapters/concurrency/redis-concurrency-limiter.ts';
import { RedisRateLimiter } from '../../src/adapters/rate-limit/redis-rate-limiter.ts';
import { BoundedRedis } from '../../src/adapters/resilience/bounded-redis.ts';
import { serviceSkipReason, TEST_REDIS_URL } from '../support/services.ts';

const skip = await serviceSkipReason('Redis', TEST_REDIS_URL);

test('two limiters on one connection: both count in Redis; the first close leaves it open, the second ends it', { skip }, async () => {
  const prefix = `sbtest:${randomBytes(4).toString('hex')}:`;
  const shared = new BoundedRedis(TEST_REDIS_URL);
  const rate = new RedisRateLimiter(shared, { prefix });
  const concurrency = new RedisConcurrencyLimiter(shared, { prefix });
  const inspect = new Redis(TEST_REDIS_URL);
  try {
    await shared.connected(3_000);
    assert.equal(shared.ready, true, 'connected');
    assert.equal((await rate.hit('k', { max: 5, windowMs: 60_000 })).allowed, true);
    assert.equal(rate.degraded, false, 'the rate limiter counted in Redis');
    assert.ok((await inspect.keys(`${prefix}rl:*`)).length > 0, 'its window is in Redis');

    await rate.close();
    assert.equal(shared.ready, true, 'the concurrency limiter still has the connection');
    const verdict = await concurrency.acquire('k', 1);
    assert.ok(verdict.granted);
    assert.equal(await inspect.zcard(`${prefix}cc:k`), 1, 'its lease is in Redis');
    verdict.lease.release();

    await concurrency.close();
    const deadline = Date.now() + 3_000;
    while (shared.client.status !== 'end' && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    assert.equal(shared.client.status, 'end', 'the last to close ended the connection');
  } finally {
    inspect.disconnect();
  }
});
