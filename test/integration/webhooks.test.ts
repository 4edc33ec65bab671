import assert from 'node:assert/strict';
import { kyselyWebhookPorts, kyselyWebhookStore } from '../../src/adapters/db/stores/webhook-store.ts';
import { before, test } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { Webhook } from 'standardwebhooks';
import { MemoryEventBus } from '../../src/adapters/bus/memory-event-bus.ts';
import { GuardedHttpClient, type ResolvedAddress } from '../../src/adapters/outbound/guarded-http-client.ts';
import { DbWorkQueue } from '../../src/adapters/queue/db-work-queue.ts';
import { OWNER_AUTHORITY } from '../../src/domain/api-key-authority.ts';
import { installErrorHandler } from '../../src/http/error-handler.ts';
import { ErrorRenderers } from '../../src/http/error-rendering.ts';
import { registerWebhookSecretRoutes } from '../../src/http/routes/webhook-secret.route.ts';
import type { ClaimedJob, JobContext } from '../../src/ports/work-queue.port.ts';
import { accountPortsOf } from '../../src/adapters/db/stores/account-ports.ts';
import { createUser } from '../../src/adapters/db/stores/account-store.ts';
import { ApiKeyAuthenticator } from '../../src/services/accounts/api-key-authenticator.ts';
import { ApiKeysService } from '../../src/services/accounts/api-keys.service.ts';
import { createWebhookJobHandler, type WebhookHandlerDeps } from '../../src/services/webhooks/webhook-delivery.handler.ts';
import { MemoryRateLimiter } from '../../src/adapters/rate-limit/memory-rate-limiter.ts';
import {
  enqueueTaskWebhook,
  listDeliveriesForTask,
  type WebhookDeliveryView,
} from '../../src/services/webhooks/webhook-deliveries.ts';
import { MAX_RETRY_AFTER_MS } from '../../src/services/webhooks/webhook-schedule.ts';
import { WEBHOOK_SECRET_GRACE_MS, WebhookSecretService } from '../../src/services/webhooks/webhook-secret.service.ts';
import type { JobOutcome } from '../../src/ports/work-queue.port.ts';
import { JOB_QUEUES } from '../../src/domain/jobs/job-catalog.ts';
import { WorkerPool } from '../../src/workers/worker-pool.ts';
import { describeEachDatabase } from '../support/databases.ts';
import { webhookReceiverForFile } from '../support/webhook-receiver.ts';

const quiet = pino({ level: 'silent' });

const statusBody = (taskId: string, status: string) => ({
  code: 200,
  data: { taskId, status, files: status === 'finished' ? [{ fileUrl: 'https://files.example/x.png', fileType: 'image' }] : [], output: null, createdTime: '2026-01-01T00:00:00.000Z', errorMessage: status === 'failed' ? 'all providers failed' : null },
});

const job = (refId: string): ClaimedJob => ({ id: `job_${refId}`, kind: 'webhook', refId, queue: JOB_QUEUES.webhooks, runAt: 0, attempts: 1, leaseUntil: 0 });

/** A delivery's job ends through the outcome its handler returns, never through the lease itself. */
const byOutcomeOnly: JobContext = {
  owner: 'test',
  complete: () => Promise.reject(new Error('the webhook handler does not end its job itself')),
  reschedule: () => Promise.reject(new Error('the webhook handler does not end its job itself')),
};

async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describeEachDatabase('webhooks', (t) => {
  const receiver = webhookReceiverForFile();
  const allowing = new GuardedHttpClient({ allowPrivate: true });
  let queue: DbWorkQueue;
  let userId = '';
  let secret = '';
  let taskSeq = 0;

  before(async () => {
    queue = new DbWorkQueue(t.handle, new MemoryEventBus());
    const user = await createUser(t.handle.db, {});
    userId = user.id;
    secret = user.webhook_secret;
  });

  const handlerWith = (deps: Partial<WebhookHandlerDeps> = {}) =>
    createWebhookJobHandler({ ...kyselyWebhookPorts(t.handle.db), client: allowing, logger: quiet, schedule: [0, 10, 10, 10], ports: 'any', ...deps });

  /** A delivery whose job the test runs by hand (its queue row is removed so no pool picks it up). */
  async function enqueue(url: string, options: { status?: string; forUser?: string; taskId?: string } = {}): Promise<{ id: string; taskId: string; body: string }> {
    const taskId = options.taskId ?? `task_${t.kind}_${++taskSeq}`;
    const body = statusBody(taskId, options.status ?? 'finished');
    const id = await t.handle.db
      .transaction()
      .execute((tx) => enqueueTaskWebhook(tx, { store: kyselyWebhookStore, queue: queue }, { userId: options.forUser ?? userId, taskId, eventType: `task.${options.status ?? 'finished'}`, url, body, now: Date.now() }));
    assert.ok(id);
    await t.handle.db.deleteFrom('jobs').where('ref_id', '=', id).execute();
    return { id, taskId, body: JSON.stringify(body) };
  }

  const run = (handler: ReturnType<typeof handlerWith>, id: string): Promise<JobOutcome> => handler(job(id), new AbortController().signal, byOutcomeOnly);
  const deliveryOf = async (taskId: string, user = userId): Promise<WebhookDeliveryView> => {
    const [view] = await listDeliveriesForTask(kyselyWebhookPorts(t.handle.db), user, taskId);
    assert.ok(view);
    return view;
  };

  test('delivers the task status body exactly, signed per Standard Webhooks, and records the attempt', async () => {
    const url = receiver.url('ok', 200);
    const { id, taskId, body } = await enqueue(url);
    const outcome = await run(handlerWith(), id);
    assert.deepEqual(outcome, { kind: 'done' });
    const [got] = receiver.at(url);
    assert.ok(got);
    assert.equal(got.body, body);
    assert.equal(got.headers['content-type'], 'application/json');
    assert.match(got.headers['user-agent'] ?? '', /Switchboard/);
    assert.equal(got.headers['webhook-id'], id);
    assert.ok(Math.abs(Number(got.headers['webhook-timestamp']) - Date.now() / 1000) < 10);
    assert.deepEqual(new Webhook(secret).verify(got.body, got.headers), JSON.parse(body));
    const view = await deliveryOf(taskId);
    assert.equal(view.status, 'delivered');
    assert.equal(view.attemptCount, 1);
    assert.ok(view.deliveredAt);
    assert.equal(view.nextAttemptAt, null);
    assert.equal(view.attempts.length, 1);
    assert.deepEqual({ no: view.attempts[0]?.attemptNo, code: view.attempts[0]?.statusCode, error: view.attempts[0]?.error }, { no: 1, code: 200, error: null });
    assert.deepEqual(await run(handlerWith(), id), { kind: 'done' }, 'a delivered delivery is not sent again');
    assert.equal(receiver.at(url).length, 1);
  });

  test('a second worker running the same job while an attempt is in flight (a lease lost under load) waits instead of sending the next attempt', async () => {
    const url = receiver.url('slow', { status: 200, delayMs: 400 });
    const { id, taskId } = await enqueue(url);
    const first = run(handlerWith(), id);
    await waitFor(() => receiver.at(url).length === 1);
    const second = await run(handlerWith(), id);
    assert.equal(second.kind, 'again', 'the second run waits for the attempt in flight');
    assert.deepEqual(await first, { kind: 'done' });
    assert.equal(receiver.at(url).length, 1, 'the receiver got one request');
    assert.deepEqual(await run(handlerWith(), id), { kind: 'done' });
    assert.equal(receiver.at(url).length, 1);
    assert.equal((await deliveryOf(taskId)).status, 'delivered');
  });

  test('at most one delivery per (task, event type), written with its job in the caller’s transaction', async () => {
    const taskId = `task_${t.kind}_once`;
    const args = { userId, taskId, eventType: 'task.finished', url: receiver.url('once'), body: statusBody(taskId, 'finished'), now: Date.now() };
    const first = await t.handle.db.transaction().execute((tx) => enqueueTaskWebhook(tx, { store: kyselyWebhookStore, queue: queue }, args));
    const second = await t.handle.db.transaction().execute((tx) => enqueueTaskWebhook(tx, { store: kyselyWebhookStore, queue: queue }, args));
    assert.ok(first);
    assert.equal(second, undefined);
    const other = await t.handle.db.transaction().execute((tx) => enqueueTaskWebhook(tx, { store: kyselyWebhookStore, queue: queue }, { ...args, eventType: 'task.expired' }));
    assert.ok(other && other !== first);
    const jobs = await t.handle.db.selectFrom('jobs').selectAll().where('ref_id', 'in', [first, other]).execute();
    assert.deepEqual(jobs.map((j) => [j.kind, j.queue]), [['webhook', JOB_QUEUES.webhooks], ['webhook', JOB_QUEUES.webhooks]]);
    await assert.rejects(
      t.handle.db.transaction().execute(async (tx) => {
        await enqueueTaskWebhook(tx, { store: kyselyWebhookStore, queue: queue }, { ...args, taskId: `${taskId}_rolled_back` });
        throw new Error('rollback');
      }),
    );
    assert.equal((await listDeliveriesForTask(kyselyWebhookPorts(t.handle.db), userId, `${taskId}_rolled_back`)).length, 0);
    await t.handle.db.deleteFrom('jobs').where('ref_id', 'in', [first, other]).execute();
  });

  test('through the worker pool: 500, 500, then 200 — one webhook-id, every attempt verifies and is recorded', async () => {
    const url = receiver.url('flaky', 500, 500, 200);
    const handler = handlerWith({ schedule: [0, 40, 40, 40] });
    const pool = new WorkerPool(queue, { webhook: handler }, { owner: `w_${t.kind}`, leaseMs: 5000, concurrency: 4, queueConcurrency: () => 4, queues: [JOB_QUEUES.webhooks], logger: quiet });
    await pool.start();
    try {
      const taskId = `task_${t.kind}_pool`;
      const id = await t.handle.db
        .transaction()
        .execute((tx) => enqueueTaskWebhook(tx, { store: kyselyWebhookStore, queue: queue }, { userId, taskId, eventType: 'task.failed', url, body: statusBody(taskId, 'failed'), now: Date.now() }));
      assert.ok(id);
      await queue.wake(JOB_QUEUES.webhooks);
      await waitFor(async () => (await deliveryOf(taskId)).status === 'delivered');
      const got = receiver.at(url);
      assert.equal(got.length, 3);
      assert.deepEqual(new Set(got.map((r) => r.headers['webhook-id'])), new Set([id]));
      for (const r of got) new Webhook(secret).verify(r.body, r.headers);
      const view = await deliveryOf(taskId);
      assert.deepEqual(view.attempts.map((a) => [a.attemptNo, a.statusCode, a.error]), [[1, 500, 'HTTP 500'], [2, 500, 'HTTP 500'], [3, 200, null]]);
      assert.equal(view.lastStatusCode, 200);
      await waitFor(async () => (await t.handle.db.selectFrom('jobs').select('id').where('ref_id', '=', id).execute()).length === 0);
    } finally {
      await pool.stop(1000);
    }
  });

  test('410 Gone stops at once; other failures give up after the last attempt of the schedule', async () => {
    const gone = await enqueue(receiver.url('gone', 410));
    assert.deepEqual(await run(handlerWith(), gone.id), { kind: 'done' });
    const goneView = await deliveryOf(gone.taskId);
    assert.equal(goneView.status, 'failed');
    assert.equal(goneView.attemptCount, 1);
    assert.match(goneView.lastError ?? '', /410/);

    const url = receiver.url('down', 500);
    const down = await enqueue(url);
    const handler = handlerWith({ schedule: [0, 5, 5] });
    const first = await run(handler, down.id);
    assert.equal(first.kind, 'again');
    assert.equal((await run(handler, down.id)).kind, 'again');
    assert.deepEqual(await run(handler, down.id), { kind: 'done' });
    assert.deepEqual(await run(handler, down.id), { kind: 'done' }, 'nothing more once failed');
    assert.equal(receiver.at(url).length, 3);
    const view = await deliveryOf(down.taskId);
    assert.equal(view.status, 'failed');
    assert.equal(view.attemptCount, 3);
    assert.equal(view.lastError, 'HTTP 500; gave up after 3 attempts');
    assert.equal(view.nextAttemptAt, null);
    assert.deepEqual(view.attempts.map((a) => a.statusCode), [500, 500, 500]);
  });

  test('Retry-After is honoured (bounded); redirects are not followed; a slow receiver times out', async () => {
    const asked = await enqueue(receiver.url('busy', { status: 503, headers: { 'retry-after': '120' } }));
    const before1 = Date.now();
    const out1 = await run(handlerWith({ schedule: [0, 10, 10] }), asked.id);
    assert.equal(out1.kind, 'again');
    const runAt = out1.kind === 'again' ? out1.runAt : 0;
    assert.ok(runAt >= before1 + 120_000 && runAt < Date.now() + 121_000, `runAt ${runAt - before1} ms later`);
    assert.equal((await deliveryOf(asked.taskId)).nextAttemptAt, new Date(runAt).toISOString());

    const greedy = await enqueue(receiver.url('greedy', { status: 429, headers: { 'retry-after': '99999999' } }));
    const out2 = await run(handlerWith(), greedy.id);
    assert.ok(out2.kind === 'again' && out2.runAt <= Date.now() + MAX_RETRY_AFTER_MS);

    const moved = await enqueue(receiver.url('moved', { status: 302, headers: { location: `${receiver.origin}/elsewhere` } }));
    assert.equal((await run(handlerWith(), moved.id)).kind, 'again');
    assert.match((await deliveryOf(moved.taskId)).lastError ?? '', /HTTP 302 \(redirects are not followed/);
    assert.equal(receiver.received.filter((r) => r.path === '/elsewhere').length, 0);

    const slow = await enqueue(receiver.url('slow', { status: 200, delayMs: 2000 }));
    assert.equal((await run(handlerWith({ timeoutMs: 300 }), slow.id)).kind, 'again');
    const slowView = await deliveryOf(slow.taskId);
    assert.equal(slowView.attempts[0]?.statusCode, null);
    assert.match(slowView.attempts[0]?.error ?? '', /^timeout/);
  });

  test('a private destination is refused unless the operator allows it, recorded as a failed attempt', async () => {
    const url = receiver.url('private', 200);
    const { id, taskId } = await enqueue(url);
    const refusing = new GuardedHttpClient({ allowPrivate: false });
    assert.deepEqual(await run(handlerWith({ client: refusing }), id), { kind: 'done' }, 'not retried');
    assert.equal(receiver.at(url).length, 0, 'nothing was sent');
    const view = await deliveryOf(taskId);
    assert.equal(view.status, 'failed');
    assert.equal(view.attempts.length, 1);
    assert.equal(view.attempts[0]?.statusCode, null);
    assert.match(view.attempts[0]?.error ?? '', /^destination refused: the address 127\.0\.0\.1 is not allowed: loopback/);
  });

  test('a destination on a port that is not allowed is refused at delivery, once, with nothing sent', async () => {
    const url = receiver.url('port', 200);
    const { id, taskId } = await enqueue(url);
    assert.deepEqual(await run(handlerWith({ ports: [443, 80] }), id), { kind: 'done' }, 'not retried');
    assert.equal(receiver.at(url).length, 0, 'nothing was sent');
    const view = await deliveryOf(taskId);
    assert.equal(view.status, 'failed');
    assert.match(view.lastError ?? '', /^destination refused: port \d+ is not allowed for webhooks \(allowed: 443, 80\)/);
  });

  test('deliveries over the per-user cap wait for the next window, counting no attempt; none is dropped', async () => {
    const user = await createUser(t.handle.db, {});
    const handler = handlerWith({ perUser: { limiter: new MemoryRateLimiter(), limit: { max: 2, windowMs: 1_000 } } });
    const url = receiver.url('capped', 200);
    const deliveries = [];
    for (let i = 0; i < 4; i++) deliveries.push(await enqueue(url, { forUser: user.id }));
    const started = Date.now();
    const outcomes = [];
    for (const d of deliveries) outcomes.push(await run(handler, d.id));
    assert.deepEqual(outcomes.slice(0, 2), [{ kind: 'done' }, { kind: 'done' }]);
    for (const outcome of outcomes.slice(2)) {
      assert.equal(outcome.kind, 'again', 'postponed, not failed');
      const runAt = (outcome as { runAt: number }).runAt;
      assert.ok(runAt > started && runAt <= started + 2_100, `after the window: ${runAt - started} ms`);
    }
    assert.equal(receiver.at(url).length, 2);
    for (const d of deliveries.slice(2)) {
      const view = await deliveryOf(d.taskId, user.id);
      assert.deepEqual([view.status, view.attemptCount], ['pending', 0], 'waiting, no attempt used');
    }
    // Another user is not held back by this one.
    const other = await enqueue(receiver.url('other', 200));
    assert.deepEqual(await run(handler, other.id), { kind: 'done' });
    await new Promise((r) => setTimeout(r, 1_050));
    for (const d of deliveries.slice(2)) assert.deepEqual(await run(handler, d.id), { kind: 'done' });
    assert.equal(receiver.at(url).length, 4, 'every delivery arrived');
  });

  test('a name that resolves to a refused address reads like a name that does not resolve: lastError is no DNS oracle', async () => {
    const answers = new Map<string, ResolvedAddress[] | Error>([
      ['vm', [{ address: '127.0.0.1', family: 4 }]],
      ['metadata', [{ address: '169.254.169.254', family: 4 }]],
      ['nothing', Object.assign(new Error('getaddrinfo ENOTFOUND nothing'), { code: 'ENOTFOUND' })],
    ]);
    const client = new GuardedHttpClient({
      allowPrivate: false,
      resolve: async (host) => {
        const answer = answers.get(host);
        if (answer instanceof Error || answer === undefined) throw answer ?? new Error('unknown');
        return answer;
      },
    });
    const errors: string[] = [];
    for (const host of answers.keys()) {
      const { id, taskId } = await enqueue(`http://${host}:8080/hook`);
      const outcome = await run(handlerWith({ client }), id);
      assert.equal(outcome.kind, 'again', `${host}: retried like any name that does not resolve`);
      const view = await deliveryOf(taskId);
      errors.push((view.lastError ?? '').replace(host, '<host>'));
      assert.ok(!/127\.0\.0\.1|169\.254|loopback|link-local/.test(view.lastError ?? ''), view.lastError ?? '');
    }
    assert.deepEqual(new Set(errors).size, 1, `one message for all: ${errors.join(' | ')}`);
    assert.equal(errors[0], 'dns: the host <host> does not resolve to a public address');
  });

  test('rotation: both secrets verify during the grace period, only the new one after it', async () => {
    const user = await createUser(t.handle.db, {});
    const service = new WebhookSecretService(kyselyWebhookPorts(t.handle.db));
    const oldSecret = (await service.get(user.id)).secret;
    assert.equal(oldSecret, user.webhook_secret);
    const rotated = await service.rotate(user.id);
    assert.notEqual(rotated.secret, oldSecret);
    assert.match(rotated.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    const until = Date.parse(rotated.previousSecretValidUntil ?? '');
    assert.ok(Math.abs(until - (Date.now() + WEBHOOK_SECRET_GRACE_MS)) < 60_000);
    assert.deepEqual(await service.get(user.id), rotated);

    const duringUrl = receiver.url('rot-during', 200);
    const during = await enqueue(duringUrl, { forUser: user.id });
    await run(handlerWith(), during.id);
    const [sent] = receiver.at(duringUrl);
    assert.ok(sent);
    assert.equal(sent.headers['webhook-signature']?.split(' ').length, 2);
    new Webhook(oldSecret).verify(sent.body, sent.headers);
    new Webhook(rotated.secret).verify(sent.body, sent.headers);

    const later = new WebhookSecretService(kyselyWebhookPorts(t.handle.db), { now: () => Date.now() + WEBHOOK_SECRET_GRACE_MS + 1000 });
    assert.equal((await later.get(user.id)).previousSecretValidUntil, undefined);
    const afterUrl = receiver.url('rot-after', 200);
    const afterGrace = await enqueue(afterUrl, { forUser: user.id });
    await run(handlerWith({ secrets: async (d) => later.signingSecrets(d.userId) }), afterGrace.id);
    const [last] = receiver.at(afterUrl);
    assert.ok(last);
    assert.equal(last.headers['webhook-signature']?.split(' ').length, 1);
    new Webhook(rotated.secret).verify(last.body, last.headers);
    assert.throws(() => new Webhook(oldSecret).verify(last.body, last.headers), /No matching signature/);
  });

  test('a user sees only their own deliveries', async () => {
    const other = await createUser(t.handle.db, {});
    const mine = await enqueue(receiver.url('mine', 200));
    const theirs = await enqueue(receiver.url('theirs', 200), { forUser: other.id });
    assert.equal((await listDeliveriesForTask(kyselyWebhookPorts(t.handle.db), userId, mine.taskId)).length, 1);
    assert.equal((await listDeliveriesForTask(kyselyWebhookPorts(t.handle.db), userId, theirs.taskId)).length, 0);
    assert.equal((await listDeliveriesForTask(kyselyWebhookPorts(t.handle.db), other.id, theirs.taskId)).length, 1);
  });

  test('routes: read and rotate the secret, list deliveries; API key required', async () => {
    const bus = new MemoryEventBus();
    const authenticator = new ApiKeyAuthenticator(accountPortsOf(t.handle.db), bus);
    const keys = new ApiKeysService(accountPortsOf(t.handle.db), bus);
    const user = await createUser(t.handle.db, {});
    const { key } = await keys.create(OWNER_AUTHORITY, user.id, { name: 'hooks' });
    const app: FastifyInstance = Fastify();
    app.decorateRequest('auth', null);
    installErrorHandler(app, new ErrorRenderers(), { noticed() {} });
    registerWebhookSecretRoutes(app, { db: t.handle.db, authenticator, webhookSecrets: new WebhookSecretService(kyselyWebhookPorts(t.handle.db)) });
    await app.ready();
    const auth = { authorization: `Bearer ${key}` };
    try {
      for (const [method, url] of [['GET', '/api/v1/webhooks/secret'], ['POST', '/api/v1/webhooks/secret/rotate'], ['GET', '/api/v1/webhooks/deliveries']] as const) {
        const res = await app.inject({ method, url });
        assert.equal(res.statusCode, 401, url);
        assert.equal(res.json().error.code, 'unauthorized');
        assert.equal((await app.inject({ method, url, headers: { authorization: 'Bearer sk-forged' } })).statusCode, 401);
      }
      const got = await app.inject({ method: 'GET', url: '/api/v1/webhooks/secret', headers: auth });
      assert.deepEqual(got.json(), { code: 200, data: { secret: user.webhook_secret } });
      const rotated = await app.inject({ method: 'POST', url: '/api/v1/webhooks/secret/rotate', headers: auth });
      assert.equal(rotated.statusCode, 200);
      const data = rotated.json().data as { secret: string; previousSecretValidUntil: string };
      assert.notEqual(data.secret, user.webhook_secret);
      assert.ok(Date.parse(data.previousSecretValidUntil) > Date.now());

      const delivered = await enqueue(receiver.url('listed', 500), { forUser: user.id });
      await run(handlerWith(), delivered.id);
      await enqueue(receiver.url('not-listed', 200));
      const listed = await app.inject({ method: 'GET', url: `/api/v1/webhooks/deliveries?taskId=${delivered.taskId}`, headers: auth });
      assert.equal(listed.statusCode, 200);
      const views = listed.json().data as WebhookDeliveryView[];
      assert.equal(views.length, 1);
      assert.equal(views[0]?.id, delivered.id);
      assert.equal(views[0]?.status, 'pending');
      assert.deepEqual(views[0]?.attempts.map((a) => a.statusCode), [500]);
      const all = await app.inject({ method: 'GET', url: '/api/v1/webhooks/deliveries?limit=10', headers: auth });
      assert.deepEqual((all.json().data as WebhookDeliveryView[]).map((v) => v.id), [delivered.id], 'only this user’s');
      const bad = await app.inject({ method: 'GET', url: '/api/v1/webhooks/deliveries?limit=lots', headers: auth });
      assert.equal(bad.statusCode, 400);
      assert.equal(bad.json().error.code, 'invalid_input');
    } finally {
      await app.close();
      await authenticator.stop();
    }
  });
});
