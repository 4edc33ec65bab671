/**
 * Issue 34, item 1: POST /api/v1/task/{taskId}/cancel. A task no upstream has accepted is failed and
 * refunded in full, once; one an upstream accepted is cancelled there where the vendor's API can
 * (Replicate, fal's queue) and refunded when the vendor confirms; otherwise it runs on and is charged.
 * A cancel racing with the task's completion never both refunds and delivers.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { verifyLedger } from '../../src/adapters/db/ledger/ledger-checks.ts';
import { type FalFake, startFalFake } from '../fakes/media/fal.fake.ts';
import { type ReplicateFake, startReplicateFake } from '../fakes/media/replicate.fake.ts';
import { describeEachMode, type TestGateway } from '../support/gateway.ts';
import { waitForTask } from '../support/tasks.ts';
import { verifySigned, webhookReceiverForFile } from '../support/webhook-receiver.ts';

let replicate: ReplicateFake;
let fal: FalFake;
let replicateUrl = '';
let replicateToken = '';
let falUrl = '';
before(async () => {
  replicate = await startReplicateFake({ callbacks: false });
  replicate.defaultBehaviour = { completeAfterMs: 40 };
  replicateUrl = `${replicate.url}/v1`;
  replicateToken = replicate.apiToken;
  fal = await startFalFake();
  falUrl = fal.url;
});
after(async () => {
  await replicate?.close();
  await fal?.close();
});
const receiver = webhookReceiverForFile();
receiver.answer('/hook', 204);

interface CancelData {
  taskId: string;
  cancelled: boolean;
  status: string;
  reason: string | null;
}
interface LedgerEntry {
  kind: string;
  reference: string | null;
  amountMicroUsd: string;
  note: string | null;
}

async function create(gw: TestGateway, key: string, body: Record<string, unknown>): Promise<string> {
  const res = await gw.api(key, 'POST', '/api/v1/generation/create', body);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return (res.body as { data: { taskId: string } }).data.taskId;
}

async function cancel(gw: TestGateway, key: string, taskId: string): Promise<CancelData> {
  const res = await gw.api(key, 'POST', `/api/v1/task/${taskId}/cancel`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return (res.body as { code: number; data: CancelData }).data;
}

async function ledgerOf(gw: TestGateway, userId: string): Promise<{ balanceMicroUsd: string; data: LedgerEntry[] }> {
  return gw.admin('GET', `/admin/v1/users/${userId}/ledger?limit=500`);
}

/** Waits until the task's latest attempt is in `state` (GET /generation/{id} lists the attempts). */
async function attemptReaches(gw: TestGateway, key: string, taskId: string, state: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const attempts = ((await gw.api(key, 'GET', `/api/v1/generation/${taskId}`)).body as { data: { attempts: Array<{ state: string }> } }).data.attempts;
    if (attempts.at(-1)?.state === state) return;
    if (Date.now() > deadline) throw new Error(`task ${taskId}: attempts ${JSON.stringify(attempts)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

function refundsOf(entries: LedgerEntry[], taskId: string): LedgerEntry[] {
  return entries.filter((e) => e.kind === 'generation_refund' && e.reference === taskId);
}

describeEachMode(
  'cancelling media tasks',
  (ctx) => {
    test('a task waiting for its provider is cancelled and refunded in full, once; the webhook reports the failure', async () => {
      const { key, userId } = await ctx.gw.createUser(1_000);
      const secret = ((await ctx.gw.api(key, 'GET', '/api/v1/webhooks/secret')).body as { data: { secret: string } }).data.secret;
      // The provider's one lane is busy sending the first task, so the second waits with no attempt.
      const busy = await create(ctx.gw, key, { model: 'nano-banana-2', input: { prompt: 'first' } });
      await attemptReaches(ctx.gw, key, busy, 'submitting');
      const waiting = await create(ctx.gw, key, { model: 'nano-banana-2', input: { prompt: 'second' }, webhook: `${receiver.origin}/hook` });
      const answer = await cancel(ctx.gw, key, waiting);
      assert.deepEqual(answer, { taskId: waiting, cancelled: true, status: 'failed', reason: null });
      const again = await cancel(ctx.gw, key, waiting);
      assert.equal(again.cancelled, false);
      assert.match(again.reason ?? '', /already ended \(failed\)/u);
      const status = await waitForTask(ctx.gw, key, waiting);
      assert.equal(status.status, 'failed');
      assert.equal(status.errorMessage, 'cancelled by the client');
      assert.deepEqual(status.files, []);
      // The busy one is being handed over: it may be accepted already, so it runs on and is charged.
      const busyAnswer = await cancel(ctx.gw, key, busy);
      assert.equal(busyAnswer.cancelled, false);
      assert.match(busyAnswer.reason ?? '', /charged/u);
      assert.equal((await waitForTask(ctx.gw, key, busy)).status, 'finished');

      const ledger = await ledgerOf(ctx.gw, userId);
      const debit = ledger.data.find((e) => e.kind === 'generation_debit' && e.reference === waiting);
      const refunds = refundsOf(ledger.data, waiting);
      assert.equal(refunds.length, 1);
      assert.equal(refunds[0]?.amountMicroUsd, String(-Number(debit?.amountMicroUsd)));
      assert.equal(refunds[0]?.note, 'cancelled by the client');
      assert.equal(refundsOf(ledger.data, busy).length, 0);
      assert.deepEqual(await verifyLedger(ctx.gw.gateway.services.database.db), []);

      const deadline = Date.now() + 10_000;
      while (!receiver.at('/hook').some((r) => r.body.includes(waiting)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      const delivery = receiver.at('/hook').find((r) => r.body.includes(waiting));
      const payload = verifySigned(secret, delivery) as { data: { status: string; errorMessage: string } };
      assert.equal(payload.data.status, 'failed');
      assert.equal(payload.data.errorMessage, 'cancelled by the client');
    });

    test('running at Replicate: not stopped (Replicate bills a stopped run); it finishes and is charged, the answer says so', async () => {
      const { key, userId } = await ctx.gw.createUser(1_000);
      replicate.script({ completeAfterMs: 3_000 });
      const taskId = await create(ctx.gw, key, { model: 'gpt-image-1.5', input: { prompt: 'a running fox', size: '1:1' } });
      await attemptReaches(ctx.gw, key, taskId, 'accepted');
      await new Promise((r) => setTimeout(r, 1_700)); // past the half: `processing`
      const cancels = replicate.requestsTo('POST', '/v1/predictions/').filter((r) => r.path.endsWith('/cancel')).length;
      const answer = await cancel(ctx.gw, key, taskId);
      assert.equal(answer.cancelled, false);
      assert.match(answer.reason ?? '', /already running the job and bills a stopped run; it will finish and be charged/u);
      assert.equal(replicate.requestsTo('POST', '/v1/predictions/').filter((r) => r.path.endsWith('/cancel')).length, cancels, 'no cancel sent');
      const task = await waitForTask(ctx.gw, key, taskId);
      assert.equal(task.status, 'finished');
      assert.equal(refundsOf((await ledgerOf(ctx.gw, userId)).data, taskId).length, 0);
    });

    test('starting at Replicate: cancelled there (POST /predictions/{id}/cancel) and refunded in full', async () => {
      const { key, userId } = await ctx.gw.createUser(1_000);
      replicate.script({ completeAfterMs: 60_000 });
      const taskId = await create(ctx.gw, key, { model: 'gpt-image-1.5', input: { prompt: 'a fox', size: '1:1' } });
      await attemptReaches(ctx.gw, key, taskId, 'accepted');
      const cancels = replicate.requestsTo('POST', '/v1/predictions/').filter((r) => r.path.endsWith('/cancel')).length;
      assert.deepEqual(await cancel(ctx.gw, key, taskId), { taskId, cancelled: true, status: 'failed', reason: null });
      assert.equal(replicate.requestsTo('POST', '/v1/predictions/').filter((r) => r.path.endsWith('/cancel')).length, cancels + 1);
      const task = await waitForTask(ctx.gw, key, taskId);
      assert.equal(task.errorMessage, 'cancelled by the client');
      const attempts = ((await ctx.gw.api(key, 'GET', `/api/v1/generation/${taskId}`)).body as { data: { attempts: Array<{ state: string; error: string | null }> } }).data.attempts;
      assert.deepEqual(attempts.map((a) => [a.state, a.error]), [['failed', 'cancelled by the client']], 'no failover after a cancel');
      assert.equal(refundsOf((await ledgerOf(ctx.gw, userId)).data, taskId).length, 1);
    });

    test('queued at fal: removed from the queue (PUT …/requests/{id}/cancel) and refunded in full', async () => {
      const { key, userId } = await ctx.gw.createUser(1_000);
      fal.script({ completeAfterMs: 60_000 });
      const taskId = await create(ctx.gw, key, { model: 'z-image-turbo', input: { prompt: 'a boat' } });
      await attemptReaches(ctx.gw, key, taskId, 'accepted');
      assert.deepEqual(await cancel(ctx.gw, key, taskId), { taskId, cancelled: true, status: 'failed', reason: null });
      assert.ok(fal.requestsTo('PUT', '/').some((r) => r.path.endsWith('/cancel')));
      assert.equal((await waitForTask(ctx.gw, key, taskId)).errorMessage, 'cancelled by the client');
      assert.equal(refundsOf((await ledgerOf(ctx.gw, userId)).data, taskId).length, 1);
    });

    test('running at fal: only a request (the app decides); when the job stops, the task fails as cancelled, refunded, no failover', async () => {
      const { key, userId } = await ctx.gw.createUser(1_000);
      fal.script({ completeAfterMs: 1_200 });
      const taskId = await create(ctx.gw, key, { model: 'z-image-turbo', input: { prompt: 'running' } });
      await attemptReaches(ctx.gw, key, taskId, 'accepted');
      // Past half its time the fake's request is IN_PROGRESS (the runner has it).
      await new Promise((r) => setTimeout(r, 700));
      const answer = await cancel(ctx.gw, key, taskId);
      assert.equal(answer.cancelled, false);
      assert.match(answer.reason ?? '', /asked to stop the running job/u);
      // The fake's app honours the signal: the request ends cancelled, and the worker does not fail over to the reserve.
      const task = await waitForTask(ctx.gw, key, taskId);
      assert.equal(task.status, 'failed');
      assert.equal(task.errorMessage, 'cancelled by the client');
      const attempts = ((await ctx.gw.api(key, 'GET', `/api/v1/generation/${taskId}`)).body as { data: { attempts: Array<{ provider: string; state: string }> } }).data.attempts;
      assert.deepEqual(attempts.map((a) => [a.provider, a.state]), [['fal-main', 'failed']]);
      const refunds = refundsOf((await ledgerOf(ctx.gw, userId)).data, taskId);
      assert.equal(refunds.length, 1);
      assert.equal(refunds[0]?.note, 'cancelled by the client');
    });

    test('accepted by a provider without a cancel call: it runs to its end, is charged, and the answer says so', async () => {
      const { key, userId } = await ctx.gw.createUser(1_000);
      const taskId = await create(ctx.gw, key, { model: 'qwen-image', input: { prompt: 'slow' } });
      await attemptReaches(ctx.gw, key, taskId, 'accepted');
      const answer = await cancel(ctx.gw, key, taskId);
      assert.deepEqual(answer, { taskId, cancelled: false, status: 'processing', reason: 'the provider already accepted the job; it will finish and be charged' });
      assert.equal((await waitForTask(ctx.gw, key, taskId)).status, 'finished');
      assert.equal(refundsOf((await ledgerOf(ctx.gw, userId)).data, taskId).length, 0);
    });

    test('refused: no key (401), an unknown task and another user’s task (404 task_not_found); nothing changes', async () => {
      const alice = await ctx.gw.createUser(1_000);
      const bob = await ctx.gw.createUser(1_000);
      const taskId = await create(ctx.gw, alice.key, { model: 'qwen-image', input: { prompt: 'mine' } });
      assert.equal((await ctx.gw.api(undefined, 'POST', `/api/v1/task/${taskId}/cancel`)).status, 401);
      assert.equal((await ctx.gw.api('sk-forged-key-0000000000000000', 'POST', `/api/v1/task/${taskId}/cancel`)).status, 401);
      for (const id of [taskId, 'task_does_not_exist']) {
        const res = await ctx.gw.api(bob.key, 'POST', `/api/v1/task/${id}/cancel`);
        assert.equal(res.status, 404);
        assert.deepEqual((res.body as { code: number; error: { code: string; type: string } }).code, 404);
        const error = (res.body as { error: { code: string; type: string; message: string } }).error;
        assert.equal(error.code, 'task_not_found');
        assert.equal(error.type, 'NotFound');
      }
      const status = (await ctx.gw.api(alice.key, 'GET', `/api/v1/task/status/${taskId}`)).body as { data: { status: string } };
      assert.notEqual(status.data.status, 'failed');
      assert.equal(refundsOf((await ledgerOf(ctx.gw, alice.userId)).data, taskId).length, 0);
    });

    test('cancel racing with completion, many times: each task is refunded or delivered, never both; the books verify', async () => {
      const { key, userId } = await ctx.gw.createUser(5_000);
      const runs: Array<Promise<{ taskId: string; answer: CancelData }>> = [];
      for (let i = 0; i < 36; i++) {
        // Half on the local provider (completes at once), half on Replicate (accepted, `starting` for the
        // first half of 60 to 660 ms and `processing` for the second: only a starting one is stopped).
        const body = i % 2 === 0 ? { model: 'grok-imagine-image', input: { prompt: `race ${i}` } } : { model: 'gpt-image-1.5', input: { prompt: `race ${i}`, size: '1:1' } };
        // Replicate's jobs end at spread times, so some cancels reach it before the end and some after.
        if (i % 2 === 1) replicate.script({ completeAfterMs: 60 + ((i * 37) % 600) });
        runs.push(
          (async () => {
            const taskId = await create(ctx.gw, key, body);
            await new Promise((r) => setTimeout(r, (i * 7) % 60));
            return { taskId, answer: await cancel(ctx.gw, key, taskId) };
          })(),
        );
      }
      const results = await Promise.all(runs);
      const ledger = await ledgerOf(ctx.gw, userId);
      let cancelled = 0;
      for (const { taskId, answer } of results) {
        const task = await waitForTask(ctx.gw, key, taskId);
        const refunds = refundsOf(ledger.data, taskId);
        const debits = ledger.data.filter((e) => e.kind === 'generation_debit' && e.reference === taskId);
        assert.equal(debits.length, 1);
        if (answer.cancelled) {
          cancelled++;
          assert.equal(task.status, 'failed', taskId);
          assert.equal(task.errorMessage, 'cancelled by the client');
          assert.deepEqual(task.files, []);
          assert.equal(refunds.length, 1, taskId);
          assert.equal(refunds[0]?.note, 'cancelled by the client');
        } else if (task.status === 'failed') {
          // The worker saw the upstream's `canceled` first and failed the task itself: still one refund, no files.
          assert.match(answer.reason ?? '', /ended first \(failed\)/u);
          assert.deepEqual(task.files, []);
          assert.equal(refunds.length, 1, taskId);
        } else {
          assert.equal(task.status, 'finished', `${taskId}: ${answer.reason}`);
          assert.ok(task.files.length > 0);
          assert.equal(refunds.length, 0, taskId);
        }
      }
      // Re-read after every task ended: a refund written late would show here.
      const final = await ledgerOf(ctx.gw, userId);
      for (const { taskId } of results) assert.equal(refundsOf(final.data, taskId).length, refundsOf(ledger.data, taskId).length);
      assert.deepEqual(await verifyLedger(ctx.gw.gateway.services.database.db), []);
      assert.ok(cancelled > 0, 'some cancels won');
    });
  },
  {
    configFile: {
      get providers() {
        return {
          'one-lane': { type: 'local', concurrency: 1, options: { submitDelayMs: 1_500 } },
          parked: { type: 'local', options: { latencyMs: 2_000 } },
          replicate: { type: 'replicate', baseUrl: replicateUrl, apiKey: replicateToken, timeoutMs: 5_000, options: { pollIntervalMs: 20, retryPollMs: 20 } },
          'fal-main': { type: 'fal', baseUrl: falUrl, apiKey: 'fal-test-key', options: { pollIntervalMs: 50 } },
        };
      },
      routes: {
        'nano-banana-2': ['one-lane'],
        'qwen-image': ['parked'],
        'gpt-image-1.5': [{ provider: 'replicate', model: 'openai/gpt-image-1.5' }],
        'z-image-turbo': [{ provider: 'fal-main', model: 'fal-ai/z-image/turbo' }, 'local'],
      },
    },
  },
);
