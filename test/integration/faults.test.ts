/**
 * Faults of the scale-out stores (issue 17, items 1 to 4): the gateway reaches PostgreSQL, Redis and
 * S3 through TCP proxies this test controls, so it can drop every connection, make a service vanish
 * or hang, and bring it back, without touching the shared services other tests use.
 *
 * - A dropped database connection (a restart, a failover, an idle reaper) does not take the process
 *   down; while the database is gone, requests answer 503 with Retry-After; then it goes on.
 * - Redis carries hints only: with it gone or hanging, creates and agent posts succeed (never a 5xx
 *   after the debit), workers fall back to polling, and /readyz stays ready (degraded).
 * - A store outage while a provider's finished result is copied is ours to wait out: the task
 *   finishes once the store is back, with no failover and no refund.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { agentClient, assertBooksBalance } from '../support/agent.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { serviceSkipReason, TEST_DATABASE_URL, TEST_REDIS_URL } from '../support/services.ts';
import { waitForTask } from '../support/tasks.ts';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.ts';

interface Proxied {
  gw: TestGateway;
  postgres: TcpProxy;
  redis: TcpProxy;
  s3: TcpProxy;
  /** The application_name of the gateway's database connections, to terminate exactly those. */
  applicationName: string;
}

function throughProxy(url: string, proxy: TcpProxy): string {
  const parsed = new URL(url);
  parsed.host = proxy.address;
  return parsed.toString();
}

async function startProxied(configFile: Record<string, unknown>): Promise<Proxied> {
  const postgres = await startTcpProxy(Number(new URL(TEST_DATABASE_URL).port || 5432));
  const redis = await startTcpProxy(Number(new URL(TEST_REDIS_URL).port || 6379));
  let s3: TcpProxy | undefined;
  const applicationName = `sb-faults-${process.pid}-${Date.now()}`;
  const gw = await startTestGateway('scaleout', {
    configFile,
    adjustEnv: async (env) => {
      const database = new URL(throughProxy(env.DATABASE_URL ?? '', postgres));
      database.searchParams.set('application_name', applicationName);
      env.DATABASE_URL = database.toString();
      env.REDIS_URL = throughProxy(env.REDIS_URL ?? '', redis);
      s3 = await startTcpProxy(Number(new URL(env.S3_ENDPOINT ?? '').port));
      env.S3_ENDPOINT = throughProxy(env.S3_ENDPOINT ?? '', s3).replace(/\/$/, '');
    },
  });
  if (!s3) throw new Error('no S3 proxy');
  return { gw, postgres, redis, s3, applicationName };
}

async function stopProxied(p: Proxied | undefined): Promise<void> {
  if (!p) return;
  p.postgres.restore();
  p.redis.restore();
  p.s3.restore();
  await p.gw.close();
  await Promise.all([p.postgres.close(), p.redis.close(), p.s3.close()]);
}

/** pg_terminate_backend on the gateway's connections only, as a restart or an idle reaper would. */
async function terminateConnections(applicationName: string): Promise<number> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    const result = await client.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1', [applicationName]);
    return result.rowCount ?? 0;
  } finally {
    await client.end();
  }
}

async function eventually<T>(what: string, attempt: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await attempt().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) assert.fail(`${what}: not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const IMAGE = { model: 'z-image-turbo', input: { prompt: 'a lighthouse at dusk' } };

describe('scale-out faults', async () => {
  const skip = (await serviceSkipReason('PostgreSQL', TEST_DATABASE_URL)) ?? (await serviceSkipReason('Redis', TEST_REDIS_URL));
  if (skip) {
    test('skipped', { skip }, () => {});
    return;
  }
  let p: Proxied | undefined;
  const ctx = () => {
    if (!p) throw new Error('not started');
    return p;
  };
  before(async () => {
    p = await startProxied({ providers: { slow: { type: 'local', options: { latencyMs: 400, maxJobMs: 1_500 } } }, routes: { 'z-image-turbo': ['slow'] } });
  });
  after(async () => {
    await stopProxied(p);
  });

  test('item 1: terminated database connections do not take the process down; the next requests succeed', async () => {
    const { gw, applicationName } = ctx();
    const { key } = await gw.createUser(1000);
    // Connections exist in the pool (idle) and are checked out (a request in flight) when they are killed.
    assert.equal((await gw.api(key, 'GET', '/api/v1/user/me')).status, 200);
    const inFlight = Array.from({ length: 5 }, () => gw.api(key, 'POST', '/api/v1/generation/create', IMAGE));
    const killed = await terminateConnections(applicationName);
    assert.ok(killed > 0, 'the gateway had database connections to terminate');
    for (const res of await Promise.all(inFlight)) assert.ok(res.status === 200 || res.status === 503, `in flight: ${res.status} ${JSON.stringify(res.body)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal((await gw.api(undefined, 'GET', '/healthz')).status, 200);
    const me = await eventually('a request after the termination', async () => {
      const res = await gw.api(key, 'GET', '/api/v1/user/me');
      return res.status === 200 ? res : undefined;
    });
    assert.equal(me.status, 200);
    const created = await gw.api(key, 'POST', '/api/v1/generation/create', IMAGE);
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const taskId = (created.body as { data: { taskId: string } }).data.taskId;
    assert.equal((await waitForTask(gw, key, taskId)).status, 'finished');
    await assertBooksBalance(gw);
  });

  test('item 1: while the database is gone, requests answer 503 with Retry-After and /readyz is not ready; then it goes on', async () => {
    const { gw, postgres } = ctx();
    const { key } = await gw.createUser(1000);
    postgres.cut();
    try {
      // A key never seen by this process: its lookup needs the database.
      const { key: fresh } = { key: `${key.slice(0, -4)}zzzz` };
      for (const [method, path, body, auth] of [
        ['GET', '/api/v1/user/me', undefined, fresh],
        ['POST', '/api/v1/generation/create', IMAGE, key],
        ['GET', '/api/v1/generations', undefined, key],
      ] as const) {
        const res = await gw.api(auth, method, path, body);
        assert.equal(res.status, 503, `${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
        assert.ok(Number(res.headers.get('retry-after')) > 0, `${path}: Retry-After`);
        const error = (res.body as { error: { code: string } }).error;
        assert.equal(error.code, 'service_unavailable');
      }
      const ready = await gw.api(undefined, 'GET', '/readyz');
      assert.equal(ready.status, 503);
      assert.equal((await gw.api(undefined, 'GET', '/healthz')).status, 200);
    } finally {
      postgres.restore();
    }
    await eventually('/readyz after the database came back', async () => ((await gw.api(undefined, 'GET', '/readyz')).status === 200 ? true : undefined));
    const created = await gw.api(key, 'POST', '/api/v1/generation/create', IMAGE);
    assert.equal(created.status, 200, JSON.stringify(created.body));
    assert.equal((await waitForTask(gw, key, (created.body as { data: { taskId: string } }).data.taskId)).status, 'finished');
    await assertBooksBalance(gw);
  });

  for (const fault of ['cut', 'hang'] as const) {
    test(`items 2 and 3: with Redis ${fault === 'cut' ? 'gone' : 'hanging'}, creates and agent posts succeed, tasks run by polling, /readyz stays ready`, async () => {
      const { gw, redis } = ctx();
      const { key } = await gw.createUser(1000);
      const agent = await agentClient(gw);
      const conversationId = await agent.conversation({ title: 'redis outage' });
      if (fault === 'cut') redis.cut();
      else redis.hang();
      try {
        const creates = await Promise.all(Array.from({ length: 10 }, () => gw.api(key, 'POST', '/api/v1/generation/create', IMAGE)));
        for (const res of creates) assert.equal(res.status, 200, `a create during the outage: ${res.status} ${JSON.stringify(res.body)}`);
        for (const res of creates) assert.equal((await waitForTask(gw, key, (res.body as { data: { taskId: string } }).data.taskId)).status, 'finished');
        const accepted = await agent.send(conversationId, 'an image of a red fox in the snow');
        const view = await agent.waitFor(accepted.runId, ['completed', 'failed'], 30_000);
        assert.equal(view.status, 'completed', JSON.stringify(view.error));
        const ready = await gw.api(undefined, 'GET', '/readyz');
        assert.equal(ready.status, 200, JSON.stringify(ready.body));
        assert.match((ready.body as { checks: { redis: string } }).checks.redis, /^degraded/);
      } finally {
        redis.restore();
      }
      await eventually('redis ok in /readyz', async () => {
        const ready = await gw.api(undefined, 'GET', '/readyz');
        return (ready.body as { checks: { redis: string } }).checks.redis === 'ok' ? true : undefined;
      });
      await assertBooksBalance(gw);
    });
  }

  test('item 4: a store outage while a finished result is copied is waited out: no failover, no refund', async () => {
    const { gw, s3 } = ctx();
    const { key } = await gw.createUser(1000);
    s3.cut();
    let taskId: string;
    try {
      const created = await gw.api(key, 'POST', '/api/v1/generation/create', IMAGE);
      assert.equal(created.status, 200, JSON.stringify(created.body));
      taskId = (created.body as { data: { taskId: string } }).data.taskId;
      // Longer than the provider's whole deadline (maxJobMs 1.5 s): the wait must not be counted against it.
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      const during = await gw.api(key, 'GET', `/api/v1/task/status/${taskId}`);
      assert.equal((during.body as { data: { status: string } }).data.status, 'processing');
    } finally {
      s3.restore();
    }
    const task = await waitForTask(gw, key, taskId, 60_000);
    assert.equal(task.status, 'finished', task.errorMessage ?? '');
    const detail = await gw.api(key, 'GET', `/api/v1/generation/${taskId}`);
    const data = (detail.body as { data: { attempts: Array<{ state: string }>; cost: { refundedMicroUsd: string } } }).data;
    assert.deepEqual(
      data.attempts.map((a) => a.state),
      ['succeeded'],
    );
    assert.equal(data.cost.refundedMicroUsd, '0');
    await assertBooksBalance(gw);
  });
});
