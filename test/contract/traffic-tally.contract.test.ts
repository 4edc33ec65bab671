/**
 * The traffic tally's contract (src/ports/traffic-tally.port.ts) on memory and on Redis: calls of the
 * last hour per subject, older ones left out; then what only the shared tally promises: two processes'
 * calls summed, counts kept through a Redis that is away and sent once it is back.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, describe, type TestContext, test } from 'node:test';
import { Redis } from 'ioredis';
import { MemoryTrafficTally } from '../../src/adapters/traffic/memory-traffic-tally.ts';
import { RedisTrafficTally } from '../../src/adapters/traffic/redis-traffic-tally.ts';
import { BoundedRedis } from '../../src/adapters/resilience/bounded-redis.ts';
import type { TrafficTally } from '../../src/ports/traffic-tally.port.ts';
import { serviceSkipReason, TEST_REDIS_URL } from '../support/services.ts';
import { startTcpProxy } from '../support/tcp-proxy.ts';

const MINUTE = 60_000;
const T0 = Date.UTC(2026, 11, 2, 12, 0, 0);

let cleaner: Redis | undefined;
after(() => cleaner?.disconnect());

async function redisTally(t: TestContext, prefix: string, url = TEST_REDIS_URL): Promise<RedisTrafficTally> {
  const redis = new BoundedRedis(url, { commandTimeoutMs: 500 });
  await redis.connected(2_000);
  const tally = new RedisTrafficTally(redis, { prefix, flushMs: 60_000 });
  t.after(async () => {
    await tally.close();
    cleaner ??= new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: 1 });
    const keys = await cleaner.keys(`${prefix}traffic:*`);
    if (keys.length > 0) await cleaner.del(...keys);
  });
  return tally;
}

const redisSkip = await serviceSkipReason('Redis', TEST_REDIS_URL);
const kinds: Array<{ name: string; skip?: string; make(t: TestContext): Promise<TrafficTally & { flush?(now?: number): Promise<void> }> }> = [
  { name: 'memory', make: async () => new MemoryTrafficTally() },
  { name: 'redis', ...(redisSkip ? { skip: redisSkip } : {}), make: (t) => redisTally(t, `sbtest:${randomBytes(4).toString('hex')}:`) },
];

for (const kind of kinds) {
  describe(`traffic tally [${kind.name}]`, { skip: kind.skip }, () => {
    test('counts the calls of the last hour per subject, sent or not yet sent; older minutes are left out', async (t) => {
      const tally = await kind.make(t);
      for (let i = 0; i < 5; i++) tally.count('entry:a:m', T0 - 30 * MINUTE);
      for (let i = 0; i < 3; i++) tally.count('entry:b:m', T0);
      tally.count('entry:a:m', T0 - 61 * MINUTE);
      await tally.flush?.(T0);
      tally.count('entry:b:m', T0);
      assert.deepEqual(Object.fromEntries(await tally.lastHour(['entry:a:m', 'entry:b:m', 'entry:c:m'], T0)), { 'entry:a:m': 5, 'entry:b:m': 4, 'entry:c:m': 0 });
      assert.deepEqual(Object.fromEntries(await tally.lastHour(['entry:a:m'], T0 + 31 * MINUTE)), { 'entry:a:m': 0 });
    });
  });
}

describe('traffic tally shared through Redis', { skip: redisSkip }, () => {
  test("two processes' calls are summed by either", async (t) => {
    const prefix = `sbtest:${randomBytes(4).toString('hex')}:`;
    const one = await redisTally(t, prefix);
    const two = await redisTally(t, prefix);
    for (let i = 0; i < 3; i++) one.count('key:p:k1', T0);
    for (let i = 0; i < 2; i++) two.count('key:p:k1', T0 + 1000);
    await Promise.all([one.flush(T0), two.flush(T0)]);
    assert.equal((await one.lastHour(['key:p:k1'], T0 + 2000)).get('key:p:k1'), 5);
    assert.equal((await two.lastHour(['key:p:k1'], T0 + 2000)).get('key:p:k1'), 5);
  });

  test('counts made while Redis is away are kept, answered from memory meanwhile, and sent once it is back', async (t) => {
    const prefix = `sbtest:${randomBytes(4).toString('hex')}:`;
    const target = new URL(TEST_REDIS_URL);
    const proxy = await startTcpProxy(Number(target.port || 6379), target.hostname);
    t.after(() => proxy.close());
    const cut = await redisTally(t, prefix, `redis://${proxy.address}`);
    const other = await redisTally(t, prefix);
    proxy.cut();
    for (let i = 0; i < 4; i++) cut.count('key:p:k2', T0);
    await cut.flush(T0);
    assert.equal((await cut.lastHour(['key:p:k2'], T0)).get('key:p:k2'), 4, 'from memory while Redis is away');
    proxy.restore();
    for (const deadline = Date.now() + 10_000; ; ) {
      await cut.flush(T0);
      if ((await other.lastHour(['key:p:k2'], T0)).get('key:p:k2') === 4) break;
      assert.ok(Date.now() < deadline, 'the counts reached Redis once it was back');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  });
});
