/**
 * A key's concurrency limit holds across API processes (issue 21, item 15): two real API processes on
 * one PostgreSQL and one Redis (reached through a TCP proxy the test can stop), a key allowing 3
 * concurrent requests, and 24 slow chat requests at once split across both. The fake upstream counts
 * the requests open at once: 3, the rest 429 in OpenAI's error shape. Then Redis stops answering: each
 * process holds the limit alone (3 each), says so once in its log, and no request fails with a 5xx.
 * Once Redis answers again and the breaker closes, the limit is shared again.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type ChatFakes, startChatFakes } from '../support/chat-gateway.ts';
import { ADMIN_TOKEN } from '../support/gateway.ts';
import { createSharedStores, type GatewayProcess, type SharedStores, spawnGateway } from '../support/processes.ts';
import { serviceSkipReason, TEST_DATABASE_URL, TEST_REDIS_URL } from '../support/services.ts';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.ts';

const skip = (await serviceSkipReason('PostgreSQL', TEST_DATABASE_URL)) ?? (await serviceSkipReason('Redis', TEST_REDIS_URL));
const FALLBACK_LOG = 'concurrency limits: Redis unavailable';
/**
 * The test's Redis is behind a proxy in this busy process, on a machine shared with other test runs:
 * the default 150 ms can pass on a healthy Redis, and the fallback would then be the product doing
 * its job, not the shared limit under test. A stuck Redis still costs one time-out, then the breaker.
 */
const REDIS_TIMEOUT = { SWITCHBOARD_REDIS_TIMEOUT_MS: '1000' };
/** Long enough that every admitted request is still upstream when the last of the burst arrives. */
const UPSTREAM_DELAY_MS = 3_000;

interface Answer {
  status: number;
  body: { error?: { message?: string; type?: string; code?: string } };
  via: string;
}

describe('a key\'s concurrency limit across two API processes [scaleout]', { skip }, () => {
  let fakes: ChatFakes;
  let proxy: TcpProxy;
  let stores: SharedStores;
  let processes: GatewayProcess[] = [];
  const logs = new Map<string, string>();
  let key = '';

  before(
    async () => {
    fakes = await startChatFakes();
    const redis = new URL(TEST_REDIS_URL);
    proxy = await startTcpProxy(Number(redis.port || 6379), redis.hostname);
    redis.host = proxy.address;
    stores = await createSharedStores('scaleout', fakes.config, { redisUrl: redis.toString() });
    processes = await Promise.all(
      ['a', 'b'].map((name) => {
        logs.set(name, '');
        return spawnGateway(stores, 'api', REDIS_TIMEOUT, { stdout: (chunk) => logs.set(name, (logs.get(name) ?? '') + chunk.toString()) });
      }),
    );
    const [first] = processes;
    assert.ok(first);
    const admin = async (path: string, body: unknown) => {
      const res = await fetch(first.url + path, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      assert.equal(res.status, 200, path);
      return (await res.json()) as { id: string; key: string };
    };
    const user = await admin('/admin/v1/users', { balanceCents: 10_000 });
    const owner = await admin(`/admin/v1/users/${user.id}/api-keys`, { name: 'owner', manageKeys: true });
    const created = await fetch(`${first.url}/api/v1/keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${owner.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'three at once', limits: { concurrentGenerations: 3 } }),
    });
    assert.equal(created.status, 200);
    key = ((await created.json()) as { data: { key: string } }).data.key;
    },
    { timeout: 90_000 },
  );

  after(
    async () => {
      proxy?.restore();
      await Promise.all(processes.map((p) => p.stop()));
      await stores?.dispose();
      await proxy?.close();
      await fakes?.close();
    },
    { timeout: 90_000 },
  );

  /** 24 slow chat requests at once, alternating between the processes. */
  async function burst(): Promise<Answer[]> {
    fakes.openai.reset();
    fakes.openai.setDefault({ delayMs: UPSTREAM_DELAY_MS });
    return Promise.all(
      Array.from({ length: 24 }, async (_, i) => {
        const gw = processes[i % 2];
        assert.ok(gw);
        const res = await fetch(`${gw.url}/api/v1/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'gpt-5.4-mini', messages: [{ role: 'user', content: `request ${i}` }], max_tokens: 20 }),
        });
        return { status: res.status, body: (await res.json()) as Answer['body'], via: i % 2 === 0 ? 'a' : 'b' };
      }),
    );
  }

  const statuses = (answers: Answer[]) => answers.map((a) => a.status).sort().join(',');

  test('with Redis: 3 upstream requests at once in all, the other 21 are 429 in OpenAI\'s error shape', async () => {
    const answers = await burst();
    assert.equal(fakes.openai.peakOpen, 3, `peak open upstream requests; statuses ${statuses(answers)}`);
    assert.equal(answers.filter((a) => a.status === 200).length, 3, statuses(answers));
    const refused = answers.filter((a) => a.status === 429);
    assert.equal(refused.length, 21, statuses(answers));
    assert.ok(new Set(refused.map((a) => a.via)).size === 2, 'both processes refused some');
    for (const { body } of refused) {
      assert.equal(body.error?.message, 'this API key allows 3 concurrent requests');
      assert.equal(typeof body.error?.type, 'string');
    }
  });

  test('Redis stops answering: each process holds the limit alone, logs it once, and nothing fails', async () => {
    proxy.hang();
    const answers = await burst();
    assert.deepEqual(
      answers.filter((a) => a.status !== 200 && a.status !== 429),
      [],
      'only 200 and 429',
    );
    assert.equal(fakes.openai.peakOpen, 6, `3 per process; statuses ${statuses(answers)}`);
    for (const via of ['a', 'b']) assert.equal(answers.filter((a) => a.via === via && a.status === 200).length, 3, `process ${via}`);
    for (const [name, log] of logs) assert.equal(log.split(FALLBACK_LOG).length - 1, 1, `process ${name} logged the fallback once:\n${log}`);
  });

  test('Redis answers again: once the breaker closes, the limit is shared again', async () => {
    proxy.restore();
    // The breaker stays open 5 s after the last failure.
    await new Promise((resolve) => setTimeout(resolve, 5_500));
    const answers = await burst();
    assert.deepEqual(
      answers.filter((a) => a.status !== 200 && a.status !== 429),
      [],
    );
    assert.equal(fakes.openai.peakOpen, 3, statuses(answers));
  });
});
