/**
 * The upstream health board's contract (src/ports/upstream-health.port.ts) on both boards: memory, and
 * Redis on the test server (where each case also checks that a second board, another process, ends
 * with the same records: the script in Redis applies the rule as the mirror does). Then what only the
 * shared board promises: reports seen by the other processes, failures from two processes both
 * counted, an enable anywhere lifting a disable from anywhere, records that expire unless disabled,
 * and a Redis that is away, stuck or cut off never holding a caller nor losing a disable.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, describe, type TestContext, test } from 'node:test';
import { Redis } from 'ioredis';
import { MemoryEventBus } from '../../src/adapters/bus/memory-event-bus.ts';
import { RedisEventBus } from '../../src/adapters/bus/redis-event-bus.ts';
import { MemoryHealthBoard } from '../../src/adapters/health/memory-health-board.ts';
import { RedisHealthBoard, type RedisHealthBoardOptions } from '../../src/adapters/health/redis-health-board.ts';
import { BoundedRedis } from '../../src/adapters/resilience/bounded-redis.ts';
import { coolingMs, FIRST_COOLING_MS, MAX_COOLING_MS } from '../../src/domain/upstreams/cooldown.ts';
import type { UpstreamFailure, UpstreamHealthBoard } from '../../src/ports/upstream-health.port.ts';
import { isReachable, serviceSkipReason, TEST_REDIS_URL } from '../support/services.ts';
import { refusedRedisUrl, startSilentRedis } from '../support/silent-redis.ts';
import { startTcpProxy } from '../support/tcp-proxy.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const freshPrefix = () => `sbtest:${randomBytes(4).toString('hex')}:`;

const transient: UpstreamFailure = { kind: 'transient', message: '503 Overloaded' };
const auth: UpstreamFailure = { kind: 'auth', message: '401 invalid api key' };
const quota: UpstreamFailure = { kind: 'quota', message: '402 payment required' };

/** Retries `check` until it passes or `timeoutMs` is over, then throws its last failure. */
async function eventually(check: () => void | Promise<void>, timeoutMs = 4_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await check();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
    }
    await sleep(20);
  }
}

let cleaner: Redis | undefined;
after(() => cleaner?.disconnect());

/** Disabled records never expire: a test's are removed, so the test server does not keep them. */
async function removeRecords(prefix: string): Promise<void> {
  cleaner ??= new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: 1 });
  const keys = await cleaner.keys(`${prefix}health:*`);
  if (keys.length > 0) await cleaner.del(...keys);
}

/** A started Redis board, closed when the test ends (and its records removed after it). */
async function redisBoard(t: TestContext, prefix: string, options: RedisHealthBoardOptions = {}, url = TEST_REDIS_URL): Promise<RedisHealthBoard> {
  const board = new RedisHealthBoard(url, { prefix, ...options });
  t.after(async () => {
    await board.close();
    if (await isReachable(TEST_REDIS_URL)) await removeRecords(prefix);
  });
  await board.start();
  return board;
}

interface Setup {
  board: UpstreamHealthBoard;
  /** Redis: a second board on the same prefix ends with the same records of `subjects` (memory: nothing to check). */
  shared(subjects: string[], now: number): Promise<void>;
}

for (const kind of ['memory', 'redis'] as const) {
  describe(`upstream health board [${kind}]`, async () => {
    const skip = kind === 'redis' ? await serviceSkipReason('Redis', TEST_REDIS_URL) : undefined;

    async function setup(t: TestContext): Promise<Setup> {
      if (kind === 'memory') {
        const board = new MemoryHealthBoard();
        await board.start();
        t.after(() => board.close());
        return { board, shared: async () => {} };
      }
      const prefix = freshPrefix();
      const board = await redisBoard(t, prefix);
      assert.equal(board.degraded, false, 'connected to Redis');
      return {
        board,
        async shared(subjects, now) {
          const other = await redisBoard(t, prefix, { refreshMs: 50 });
          await eventually(() => {
            for (const subject of subjects) assert.deepEqual(other.record(subject, now), board.record(subject, now), subject);
          });
          await other.close();
        },
      };
    }

    test('an unknown subject is healthy and has no record; a success records nothing', { skip }, async (t) => {
      const { board } = await setup(t);
      assert.equal(board.state('key:p:k'), 'healthy');
      assert.equal(board.record('key:p:k'), undefined);
      board.succeeded('key:p:k');
      assert.equal(board.record('key:p:k'), undefined);
      assert.deepEqual(board.records(''), []);
    });

    test('failures cool with doubling, half-open after each cooling, capped at five minutes', { skip }, async (t) => {
      const { board, shared } = await setup(t);
      const s = 'entry:p:model';
      const t0 = Date.now();
      board.failed(s, transient, t0);
      assert.equal(board.state(s, t0), 'cooling');
      assert.equal(board.state(s, t0 + FIRST_COOLING_MS - 1), 'cooling');
      assert.equal(board.state(s, t0 + FIRST_COOLING_MS), 'healthy', 'tried again once the cooling ends');
      assert.deepEqual(board.record(s, t0), {
        subject: s, state: 'cooling', failures: 1, coolingUntil: t0 + FIRST_COOLING_MS, disabledReason: null, lastError: '503 Overloaded', lastErrorAt: t0, lastSuccessAt: null,
      });
      const t1 = t0 + FIRST_COOLING_MS;
      board.failed(s, { kind: 'transient', message: 'timed out' }, t1);
      assert.equal(board.record(s, t1)?.coolingUntil, t1 + 2 * FIRST_COOLING_MS, 'the failure after the half-open trial cools twice as long');
      assert.equal(board.record(s, t1)?.failures, 2);
      assert.equal(board.record(s, t1)?.lastError, 'timed out');
      let at = t1;
      for (let i = 3; i <= 12; i++) {
        at = (board.record(s, at)?.coolingUntil ?? at) + 1;
        board.failed(s, transient, at);
        assert.equal(board.record(s, at)?.coolingUntil, at + coolingMs(i, transient), `failure ${i}`);
      }
      assert.equal(board.record(s, at)?.coolingUntil, at + MAX_COOLING_MS, 'capped');
      await shared([s], at);
    });

    test('a success heals and restarts the doubling, but does not lift a disable', { skip }, async (t) => {
      const { board, shared } = await setup(t);
      const s = 'key:p:k1';
      const t0 = Date.now();
      board.failed(s, transient, t0);
      board.failed(s, transient, t0 + 1);
      assert.equal(board.state(s, t0 + 2), 'cooling');
      board.succeeded(s, t0 + 2);
      assert.equal(board.state(s, t0 + 2), 'healthy');
      assert.deepEqual(board.record(s, t0 + 2), {
        subject: s, state: 'healthy', failures: 0, coolingUntil: null, disabledReason: null, lastError: '503 Overloaded', lastErrorAt: t0 + 1, lastSuccessAt: t0 + 2,
      });
      board.failed(s, transient, t0 + 3);
      assert.equal(board.record(s, t0 + 3)?.coolingUntil, t0 + 3 + FIRST_COOLING_MS, 'counting starts again');
      await board.disable(s, 'operator: rotating', t0 + 4);
      board.succeeded(s, t0 + 5);
      assert.equal(board.state(s, t0 + 5), 'disabled', 'a success does not enable');
      assert.equal(board.record(s, t0 + 5)?.disabledReason, 'operator: rotating');
      assert.equal(board.record(s, t0 + 5)?.failures, 0);
      await shared([s], t0 + 5);
    });

    test('an auth or a quota failure disables, without cooling, until enabled', { skip }, async (t) => {
      const { board, shared } = await setup(t);
      const t0 = Date.now();
      board.failed('key:p:a', auth, t0);
      board.failed('key:p:q', quota, t0);
      for (const s of ['key:p:a', 'key:p:q']) {
        assert.equal(board.state(s, t0), 'disabled', s);
        assert.equal(board.state(s, t0 + 60 * 60_000), 'disabled', `${s} stays disabled`);
        assert.equal(board.record(s, t0)?.coolingUntil, null);
        assert.equal(board.record(s, t0)?.failures, 1);
      }
      assert.match(board.record('key:p:a', t0)?.disabledReason ?? '', /refused the key: 401 invalid api key/);
      assert.match(board.record('key:p:q', t0)?.disabledReason ?? '', /quota or credit is spent: 402 payment required/);
      board.failed('key:p:a', quota, t0 + 1);
      assert.match(board.record('key:p:a', t0 + 1)?.disabledReason ?? '', /refused the key/, 'the first reason stays');
      assert.equal(board.record('key:p:a', t0 + 1)?.lastError, '402 payment required');
      await shared(['key:p:a', 'key:p:q'], t0 + 1);
      await board.enable('key:p:a');
      assert.equal(board.state('key:p:a', t0 + 2), 'healthy');
      await shared(['key:p:a'], t0 + 2);
    });

    test('disable and enable by hand; enable clears cooling and failures; enabling the unknown is harmless', { skip }, async (t) => {
      const { board, shared } = await setup(t);
      const t0 = Date.now();
      await board.disable('entry:p:m', 'operator: maintenance', t0);
      assert.equal(board.state('entry:p:m', t0), 'disabled');
      assert.deepEqual(board.record('entry:p:m', t0), {
        subject: 'entry:p:m', state: 'disabled', failures: 0, coolingUntil: null, disabledReason: 'operator: maintenance', lastError: null, lastErrorAt: t0, lastSuccessAt: null,
      });
      await shared(['entry:p:m'], t0);
      await board.enable('entry:p:m');
      assert.equal(board.state('entry:p:m', t0), 'healthy');
      assert.equal(board.record('entry:p:m', t0)?.disabledReason, null);

      board.failed('key:p:c', transient, t0);
      board.failed('key:p:c', transient, t0);
      assert.equal(board.state('key:p:c', t0), 'cooling');
      await board.enable('key:p:c');
      assert.equal(board.state('key:p:c', t0), 'healthy');
      assert.equal(board.record('key:p:c', t0)?.failures, 0);
      assert.equal(board.record('key:p:c', t0)?.coolingUntil, null);

      await board.enable('key:p:never');
      assert.equal(board.record('key:p:never'), undefined);
      await shared(['entry:p:m', 'key:p:c', 'key:p:never'], t0);
    });

    test('a rate limit cools for its Retry-After (at least 1 s), never shortening a longer cooling', { skip }, async (t) => {
      const { board, shared } = await setup(t);
      const t0 = Date.now();
      board.failed('key:p:r', { kind: 'rate_limited', message: '429', retryAfterMs: 7_000 }, t0);
      assert.equal(board.record('key:p:r', t0)?.coolingUntil, t0 + 7_000);
      assert.equal(board.state('key:p:r', t0 + 6_999), 'cooling');
      assert.equal(board.state('key:p:r', t0 + 7_000), 'healthy');
      board.failed('key:p:tiny', { kind: 'rate_limited', message: '429', retryAfterMs: 10 }, t0);
      assert.equal(board.record('key:p:tiny', t0)?.coolingUntil, t0 + 1_000);
      board.failed('key:p:plain', { kind: 'rate_limited', message: '429' }, t0);
      board.failed('key:p:plain', { kind: 'rate_limited', message: '429' }, t0);
      assert.equal(board.record('key:p:plain', t0)?.coolingUntil, t0 + 2 * FIRST_COOLING_MS, 'without Retry-After it doubles');
      for (let i = 0; i < 3; i++) board.failed('key:p:long', transient, t0);
      board.failed('key:p:long', { kind: 'rate_limited', message: '429', retryAfterMs: 1_000 }, t0);
      assert.equal(board.record('key:p:long', t0)?.coolingUntil, t0 + 4 * FIRST_COOLING_MS);
      await shared(['key:p:r', 'key:p:tiny', 'key:p:plain', 'key:p:long'], t0);
    });

    test('records(prefix) lists the recorded subjects starting with it', { skip }, async (t) => {
      const { board } = await setup(t);
      const t0 = Date.now();
      board.failed('key:a:1', transient, t0);
      board.failed('key:a:2', auth, t0);
      board.failed('key:ab:1', transient, t0);
      board.failed('entry:a:m', transient, t0);
      const listed = board.records('key:a:', t0).sort((x, y) => x.subject.localeCompare(y.subject));
      assert.deepEqual(listed.map((r) => [r.subject, r.state]), [['key:a:1', 'cooling'], ['key:a:2', 'disabled']]);
      assert.equal(board.records('', t0).length, 4);
      assert.deepEqual(board.records('nothing:', t0), []);
    });
  });
}

describe('upstream health board [redis, shared]', async () => {
  const skip = await serviceSkipReason('Redis', TEST_REDIS_URL);

  test('a failure reported on A is seen on B by message, without waiting for a refresh', { skip }, async (t) => {
    const prefix = freshPrefix();
    const a = await redisBoard(t, prefix, { refreshMs: 60_000 });
    const b = await redisBoard(t, prefix, { refreshMs: 60_000 });
    const t0 = Date.now();
    a.failed('key:p:k', transient, t0);
    await eventually(() => assert.equal(b.state('key:p:k', t0), 'cooling'));
    assert.deepEqual(b.record('key:p:k', t0), a.record('key:p:k', t0));
    a.succeeded('key:p:k', t0 + 1);
    await eventually(() => assert.equal(b.state('key:p:k', t0 + 1), 'healthy'));
    assert.equal(b.record('key:p:k', t0 + 1)?.lastSuccessAt, t0 + 1);
  });

  test('a success that heals nothing is not written per call, and refreshes do not undo it here', { skip }, async (t) => {
    const prefix = freshPrefix();
    const redis = new Redis(TEST_REDIS_URL);
    t.after(() => redis.disconnect());
    const a = await redisBoard(t, prefix, { refreshMs: 50 });
    const t0 = Date.now();
    a.failed('key:p:k', transient, t0);
    a.succeeded('key:p:k', t0 + 1);
    const key = `${prefix}health:subject:key:p:k`;
    await eventually(async () => assert.equal(await redis.hget(key, 'failures'), '0', 'the healing success is written'));
    a.succeeded('key:p:k', t0 + 2);
    a.succeeded('key:p:k', t0 + 3);
    await sleep(300);
    assert.equal(a.record('key:p:k', t0 + 3)?.lastSuccessAt, t0 + 3, 'this process still knows its last success');
    assert.equal(await redis.hget(key, 'lastSuccessAt'), String(t0 + 1), 'Redis was not written for it');
  });

  test('a lost message costs one refresh period', { skip }, async (t) => {
    const prefix = freshPrefix();
    const a = await redisBoard(t, prefix);
    // B's bus hears nothing from A: only its refresh can bring A's report.
    const b = new RedisHealthBoard({ redis: new BoundedRedis(TEST_REDIS_URL), bus: new MemoryEventBus() }, { prefix, refreshMs: 100 });
    t.after(() => b.close());
    await b.start();
    const t0 = Date.now();
    a.failed('entry:p:m', quota, t0);
    await eventually(() => assert.equal(b.state('entry:p:m', t0), 'disabled'));
  });

  test('failures reported at once on A and B all count', { skip }, async (t) => {
    const prefix = freshPrefix();
    const a = await redisBoard(t, prefix);
    const b = await redisBoard(t, prefix);
    const t0 = Date.now();
    for (let i = 0; i < 3; i++) {
      a.failed('key:p:k', transient, t0);
      if (i < 2) b.failed('key:p:k', transient, t0);
    }
    for (const board of [a, b]) {
      await eventually(() => {
        assert.equal(board.record('key:p:k', t0)?.failures, 5);
        assert.equal(board.record('key:p:k', t0)?.coolingUntil, t0 + coolingMs(5, transient), 'cooled by the shared count');
      });
    }
    const fresh = await redisBoard(t, prefix);
    assert.equal(fresh.record('key:p:k', t0)?.failures, 5, 'and Redis holds 5');
  });

  test('an enable on B lifts a disable from A; disabled records do not expire, the others do', { skip }, async (t) => {
    const prefix = freshPrefix();
    const redis = new Redis(TEST_REDIS_URL);
    t.after(() => redis.disconnect());
    const ttlMs = 60_000;
    const a = await redisBoard(t, prefix, { ttlMs });
    const b = await redisBoard(t, prefix, { ttlMs });
    const t0 = Date.now();
    a.failed('key:p:k', auth, t0);
    await eventually(() => assert.equal(b.state('key:p:k', t0), 'disabled'));
    assert.equal(await redis.pttl(`${prefix}health:subject:key:p:k`), -1, 'no expiry while disabled');
    assert.equal(await redis.zscore(`${prefix}health:subjects`, 'key:p:k'), 'inf');
    await b.enable('key:p:k');
    await eventually(() => assert.equal(a.state('key:p:k', t0), 'healthy'));
    assert.equal(a.record('key:p:k', t0)?.disabledReason, null);
    const pttl = await redis.pttl(`${prefix}health:subject:key:p:k`);
    assert.ok(pttl > 0 && pttl <= ttlMs, `expires once enabled (${pttl} ms)`);
  });

  test('an expired record is forgotten by every board; a disabled one stays', { skip }, async (t) => {
    const prefix = freshPrefix();
    const a = await redisBoard(t, prefix, { ttlMs: 300, refreshMs: 50 });
    const t0 = Date.now();
    a.failed('key:p:gone', transient, t0);
    a.failed('key:p:kept', auth, t0);
    await eventually(() => assert.equal(a.record('key:p:gone', t0), undefined, 'forgotten after its TTL'));
    assert.equal(a.state('key:p:kept', t0), 'disabled');
    const fresh = await redisBoard(t, prefix, { ttlMs: 300 });
    assert.deepEqual(fresh.records('', t0).map((r) => r.subject), ['key:p:kept']);
  });

  test("on the gateway's connection and bus: shared both ways, the bus left open, the connection ended by its last user", { skip }, async (t) => {
    const prefix = freshPrefix();
    const connection = new BoundedRedis(TEST_REDIS_URL);
    const limiters = connection.share();
    const bus = new RedisEventBus(TEST_REDIS_URL, { prefix });
    t.after(() => bus.close());
    const a = new RedisHealthBoard({ redis: connection, bus }, { prefix, refreshMs: 60_000 });
    await a.start();
    const b = await redisBoard(t, prefix, { refreshMs: 60_000 });
    const t0 = Date.now();
    a.failed('key:p:a', transient, t0);
    b.failed('key:p:b', auth, t0);
    await eventually(() => {
      assert.equal(b.state('key:p:a', t0), 'cooling');
      assert.equal(a.state('key:p:b', t0), 'disabled');
    });
    await a.close();
    assert.equal(connection.client.status, 'ready', 'the limiters still have the connection');
    let heard = '';
    await bus.subscribe('probe', (payload) => {
      heard = payload;
    });
    await bus.publish('probe', 'still open');
    await eventually(() => assert.equal(heard, 'still open', 'the bus was left open'));
    limiters.release();
    await eventually(() => assert.equal(connection.client.status, 'end'));
  });

  test('with Redis unreachable, start takes about a second and the board answers from memory', async (t) => {
    const began = Date.now();
    const board = await redisBoard(t, freshPrefix(), {}, await refusedRedisUrl());
    assert.ok(Date.now() - began < 2_000, `started in ${Date.now() - began} ms`);
    assert.equal(board.degraded, true);
    const t0 = Date.now();
    board.failed('key:p:k', transient, t0);
    assert.equal(board.state('key:p:k', t0), 'cooling');
    await board.disable('entry:p:m', 'operator', t0);
    assert.equal(board.state('entry:p:m', t0), 'disabled');
    await board.enable('entry:p:m');
    assert.equal(board.state('entry:p:m', t0), 'healthy');
    board.succeeded('key:p:k', t0);
    assert.equal(board.state('key:p:k', t0), 'healthy');
  });

  test('with Redis stuck, neither start nor the operator waits on it for long', async (t) => {
    const silent = await startSilentRedis();
    t.after(() => silent.close());
    const began = Date.now();
    const board = await redisBoard(t, freshPrefix(), { commandTimeoutMs: 100 }, silent.url);
    assert.ok(Date.now() - began < 2_000, `started in ${Date.now() - began} ms`);
    const t0 = Date.now();
    board.failed('key:p:k', auth, t0);
    const disabling = Date.now();
    await board.disable('key:p:other', 'operator', t0);
    assert.ok(Date.now() - disabling < 2_000, `disable answered in ${Date.now() - disabling} ms`);
    assert.equal(board.state('key:p:k', t0), 'disabled');
    assert.equal(board.state('key:p:other', t0), 'disabled');
  });

  test('reports made while Redis is cut off reach the others once it is back', { skip }, async (t) => {
    const prefix = freshPrefix();
    const url = new URL(TEST_REDIS_URL);
    const proxy = await startTcpProxy(Number(url.port || 6379), url.hostname);
    t.after(() => proxy.close());
    const through = await redisBoard(t, prefix, { breakMs: 100, refreshMs: 100 }, `redis://${proxy.address}`);
    const other = await redisBoard(t, prefix, { refreshMs: 100 });
    assert.equal(through.degraded, false, 'connected through the proxy');
    proxy.cut();
    await eventually(() => assert.equal(through.degraded, true, 'saw Redis go'));
    const t0 = Date.now();
    await through.disable('key:p:k', 'operator: during the outage', t0);
    through.failed('entry:p:m', transient, t0);
    assert.equal(through.state('key:p:k', t0), 'disabled');
    await sleep(300);
    assert.equal(other.state('key:p:k', t0), 'healthy', 'not shared while cut off');
    proxy.restore();
    await eventually(() => {
      assert.equal(other.state('key:p:k', t0), 'disabled');
      assert.equal(other.record('entry:p:m', t0)?.failures, 1);
    }, 12_000);
    assert.equal(through.state('key:p:k', t0), 'disabled', 'the refreshes meanwhile kept what was pending');
    assert.equal(through.record('entry:p:m', t0)?.failures, 1, 'counted once');
  });
});
