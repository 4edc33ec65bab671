/**
 * The concurrency-limiter port's contract, on both adapters (memory; Redis on the test server), then
 * what only Redis does: slots shared by two limiters (two processes), given back on close, and a
 * Redis that is away or stuck costing at most one command time-out before memory takes over.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { MemoryConcurrencyLimiter } from '../../src/adapters/concurrency/memory-concurrency-limiter.ts';
import { type FallbackLog, RedisConcurrencyLimiter, type RedisConcurrencyLimiterOptions } from '../../src/adapters/concurrency/redis-concurrency-limiter.ts';
import type { ConcurrencyLease, ConcurrencyLimiter, ConcurrencyVerdict, LeaseTimings } from '../../src/ports/concurrency-limiter.port.ts';
import { serviceSkipReason, TEST_REDIS_URL } from '../support/services.ts';
import { refusedRedisUrl, startSilentRedis } from '../support/silent-redis.ts';
import { startTcpProxy } from '../support/tcp-proxy.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits until the Redis client is connected, so that the first calls are not counted in memory. */
async function ready(limiter: ConcurrencyLimiter): Promise<void> {
  if (!(limiter instanceof RedisConcurrencyLimiter)) return;
  const deadline = Date.now() + 3000;
  while (limiter.degraded && Date.now() < deadline) await sleep(10);
  assert.equal(limiter.degraded, false, 'connected to Redis');
}

function leaseOf(verdict: ConcurrencyVerdict): ConcurrencyLease {
  assert.ok(verdict.granted, `granted (${JSON.stringify(verdict)})`);
  return verdict.lease;
}

const granted = (verdicts: ConcurrencyVerdict[]) => verdicts.filter((v) => v.granted).length;

for (const kind of ['memory', 'redis'] as const) {
  describe(`concurrency limiter [${kind}]`, async () => {
    const skip = kind === 'redis' ? await serviceSkipReason('Redis', TEST_REDIS_URL) : undefined;
    const prefix = `sbtest:${randomBytes(4).toString('hex')}:`;
    const make = async (timings: LeaseTimings = {}): Promise<ConcurrencyLimiter> => {
      const limiter = kind === 'memory' ? new MemoryConcurrencyLimiter(timings) : new RedisConcurrencyLimiter(TEST_REDIS_URL, { prefix, ...timings });
      await ready(limiter);
      return limiter;
    };

    test('a burst of 60 acquires gets exactly max slots; the refusals say how many are held; other keys are apart', { skip }, async () => {
      const limiter = await make();
      const verdicts = await Promise.all(Array.from({ length: 60 }, () => limiter.acquire('burst', 5)));
      assert.equal(granted(verdicts), 5);
      const refused = verdicts.find((v) => !v.granted);
      assert.deepEqual(refused, { granted: false, held: 5 });
      assert.equal((await limiter.acquire('other', 1)).granted, true, 'another key has its own slots');
      await limiter.close();
    });

    test('release frees the slot; a second release of the same lease frees nothing more', { skip }, async () => {
      const limiter = await make();
      const first = leaseOf(await limiter.acquire('r', 2));
      leaseOf(await limiter.acquire('r', 2));
      assert.equal((await limiter.acquire('r', 2)).granted, false);
      first.release();
      first.release();
      const third = await limiter.acquire('r', 2);
      assert.equal(third.granted, true, 'the released slot was taken again');
      assert.equal((await limiter.acquire('r', 2)).granted, false, 'the double release did not free the other lease');
      await limiter.close();
    });

    test('max 0 or less grants nothing', { skip }, async () => {
      const limiter = await make();
      assert.equal((await limiter.acquire('zero', 0)).granted, false);
      assert.equal((await limiter.acquire('zero', -2)).granted, false);
      await limiter.close();
    });

    test('a lease not renewed expires and its slot comes back by itself', { skip }, async () => {
      // Renewal far later than the lease's end: the lease of a process that stopped renewing (a crash).
      const limiter = await make({ leaseMs: 200, renewEveryMs: 60_000 });
      leaseOf(await limiter.acquire('e', 1));
      assert.equal((await limiter.acquire('e', 1)).granted, false);
      await sleep(350);
      assert.equal((await limiter.acquire('e', 1)).granted, true, 'the expired lease no longer counts');
      await limiter.close();
    });

    test('a renewed lease outlives its length while held', { skip }, async () => {
      const limiter = await make({ leaseMs: 200, renewEveryMs: 50 });
      const lease = leaseOf(await limiter.acquire('k', 1));
      await sleep(600);
      assert.equal((await limiter.acquire('k', 1)).granted, false, 'still held after three lease lengths');
      lease.release();
      assert.equal((await limiter.acquire('k', 1)).granted, true);
      await limiter.close();
    });
  });
}

describe('concurrency limiter [redis, shared]', async () => {
  const skip = await serviceSkipReason('Redis', TEST_REDIS_URL);
  const prefix = `sbtest:${randomBytes(4).toString('hex')}:`;
  const make = async (options: RedisConcurrencyLimiterOptions = {}) => {
    const limiter = new RedisConcurrencyLimiter(TEST_REDIS_URL, { prefix, ...options });
    await ready(limiter);
    return limiter;
  };

  test('two limiters (two processes) share the slots under a burst on both', { skip }, async () => {
    const [a, b] = [await make(), await make()];
    const verdicts = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? a : b).acquire('shared', 3)));
    assert.equal(granted(verdicts), 3);
    const lease = verdicts.find((v) => v.granted);
    assert.ok(lease?.granted);
    lease.lease.release();
    // The release reaches Redis in the background.
    const deadline = Date.now() + 2000;
    let again = await b.acquire('shared', 3);
    while (!again.granted && Date.now() < deadline) {
      await sleep(10);
      again = await b.acquire('shared', 3);
    }
    assert.equal(again.granted, true, 'a slot released on one is free on the other');
    await a.close();
    await b.close();
  });

  test('a lease still held that Redis lost (expired during an outage) is put back by the next renewal', { skip }, async () => {
    const holder = await make({ leaseMs: 1_000, renewEveryMs: 50 });
    const other = await make();
    leaseOf(await holder.acquire('lost', 1));
    const redis = new Redis(TEST_REDIS_URL);
    try {
      assert.equal(await redis.del(`${prefix}cc:lost`), 1, 'the set was where the adapter keeps it');
      await sleep(200);
      assert.equal((await other.acquire('lost', 1)).granted, false, 'the running request counts again');
    } finally {
      redis.disconnect();
      await holder.close();
      await other.close();
    }
  });

  test('leases granted from memory during an outage count in Redis once it is back, until they are released', { skip }, async () => {
    const redisUrl = new URL(TEST_REDIS_URL);
    const proxy = await startTcpProxy(Number(redisUrl.port || 6379), redisUrl.hostname);
    const cutOff = await make();
    const through = new RedisConcurrencyLimiter(`redis://${proxy.address}`, { prefix, breakMs: 100, renewEveryMs: 50 });
    const redis = new Redis(TEST_REDIS_URL);
    const held = () => redis.zcard(`${prefix}cc:outage`);
    const until = async (what: string, check: () => Promise<boolean>) => {
      const deadline = Date.now() + 10_000;
      while (!(await check())) {
        assert.ok(Date.now() < deadline, what);
        await sleep(20);
      }
    };
    try {
      await ready(through);
      proxy.cut();
      await until('the limiter saw Redis go', async () => through.degraded);
      const first = leaseOf(await through.acquire('outage', 3));
      const second = leaseOf(await through.acquire('outage', 3));
      assert.equal(await held(), 0, 'counted in memory only');
      proxy.restore();
      await until('the two running requests were written into Redis', async () => (await held()) === 2);
      assert.equal(granted(await Promise.all([1, 2, 3].map(() => cutOff.acquire('outage', 3)))), 1, 'another process sees them');
      first.release();
      second.release();
      await until('released in Redis too', async () => (await held()) === 1);
    } finally {
      redis.disconnect();
      await through.close();
      await cutOff.close();
      await proxy.close();
    }
  });

  test('two acquires that both see Redis back write the memory leases once and leave them in Redis', { skip }, async () => {
    const redisUrl = new URL(TEST_REDIS_URL);
    const proxy = await startTcpProxy(Number(redisUrl.port || 6379), redisUrl.hostname);
    // No renewal during the test: only the two acquires write the memory leases into Redis.
    const through = new RedisConcurrencyLimiter(`redis://${proxy.address}`, { prefix, breakMs: 100, renewEveryMs: 60_000 });
    const redis = new Redis(TEST_REDIS_URL);
    const held = () => redis.zcard(`${prefix}cc:twice`);
    try {
      await ready(through);
      proxy.cut();
      for (const deadline = Date.now() + 10_000; !through.degraded; ) {
        assert.ok(Date.now() < deadline, 'the limiter saw Redis go');
        await sleep(20);
      }
      const leases = [leaseOf(await through.acquire('twice', 9)), leaseOf(await through.acquire('twice', 9))];
      proxy.restore();
      await ready(through);
      leases.push(...(await Promise.all([through.acquire('twice', 9), through.acquire('twice', 9)])).map(leaseOf));
      for (const deadline = Date.now() + 10_000; (await held()) < 4; ) {
        assert.ok(Date.now() < deadline, 'the two memory leases were written into Redis');
        await sleep(20);
      }
      await sleep(300);
      assert.equal(await held(), 4, 'both writes answered, and neither took back a lease still held');
      for (const lease of leases) lease.release();
    } finally {
      redis.disconnect();
      await through.close();
      await proxy.close();
    }
  });

  test('close gives back the leases still held', { skip }, async () => {
    const [a, b] = [await make(), await make()];
    leaseOf(await a.acquire('closing', 2));
    leaseOf(await a.acquire('closing', 2));
    assert.equal((await b.acquire('closing', 2)).granted, false);
    await a.close();
    assert.equal((await b.acquire('closing', 2)).granted, true);
    await b.close();
  });
});

describe('concurrency limiter [redis unreachable]', () => {
  const warnings: string[] = [];
  const logger: FallbackLog = { warn: (_, message) => void warnings.push(message), info: () => {} };

  test('connections refused: memory at once, the cap still holds, and it is logged once', async () => {
    warnings.length = 0;
    const limiter = new RedisConcurrencyLimiter(await refusedRedisUrl(), { prefix: 'sbtest:down:', logger });
    const started = performance.now();
    const verdicts = await Promise.all(Array.from({ length: 20 }, () => limiter.acquire('k', 3)));
    const elapsed = performance.now() - started;
    assert.equal(granted(verdicts), 3);
    // Without the fallback these calls would wait for a connection (until the test's time-out): the bound
    // tells that from a busy machine.
    assert.ok(elapsed < 5000, `twenty calls took ${elapsed.toFixed(0)} ms`);
    assert.equal(limiter.degraded, true);
    for (const v of verdicts) if (v.granted) v.lease.release();
    assert.equal((await limiter.acquire('k', 3)).granted, true, 'memory releases too');
    assert.equal(warnings.length, 1, `one warning for 21 calls: ${JSON.stringify(warnings)}`);
    await limiter.close();
  });

  test('a Redis that never answers costs one command time-out, then the breaker skips it; nothing throws', async () => {
    warnings.length = 0;
    const silent = await startSilentRedis();
    const limiter = new RedisConcurrencyLimiter(silent.url, { prefix: 'sbtest:hang:', commandTimeoutMs: 100, breakMs: 60_000, logger });
    try {
      await ready(limiter);
      const t0 = performance.now();
      const burst = await Promise.all(Array.from({ length: 10 }, () => limiter.acquire('h', 2)));
      const first = performance.now() - t0;
      assert.equal(granted(burst), 2, 'each process holds the cap alone');
      // The upper bound only tells a time-out from a hang: a busy machine may take longer than 100 ms.
      assert.ok(first >= 90 && first < 5000, `the burst waited for the time-out: ${first.toFixed(0)} ms`);
      assert.equal(limiter.degraded, true, 'the breaker is open');
      const sent = silent.unanswered();
      assert.equal((await limiter.acquire('h', 2)).granted, false);
      assert.equal(silent.unanswered(), sent, 'a later call sent nothing to Redis, so it did not wait for it');
      assert.equal(warnings.length, 1, `logged once: ${JSON.stringify(warnings)}`);
      // Release and close do not wait on the stuck server either.
      for (const v of burst) if (v.granted) v.lease.release();
      assert.equal((await limiter.acquire('h', 2)).granted, true);
    } finally {
      const t2 = performance.now();
      await limiter.close();
      assert.ok(performance.now() - t2 < 5000, 'close does not wait on the stuck server');
      await silent.close();
    }
  });
});
