/**
 * A callback for an attempt whose submit went unanswered names the upstream job to adopt (issue 29,
 * item 6). kie's record of a job carries the request it received (`param`), with our callback URL,
 * unique per attempt: a callback naming another request's job is not adopted (it would deliver that
 * job's file), and is listed for the operator; one naming the job we did submit is.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { startKieFake } from '../fakes/media/kie.fake.ts';
import { describeEachMode, type TestGateway } from '../support/gateway.ts';
import { waitForTask } from '../support/tasks.ts';

const kie = await startKieFake();
after(() => kie.close());

async function create(gw: TestGateway, key: string, prompt: string): Promise<string> {
  const created = await gw.api(key, 'POST', '/api/v1/generation/create', { model: 'z-image-turbo', input: { prompt } });
  assert.equal(created.status, 200, JSON.stringify(created.body));
  return (created.body as { data: { taskId: string } }).data.taskId;
}

/** The task's first attempt, once `ready` holds for it. */
async function attemptOf(gw: TestGateway, taskId: string, ready: (a: { upstream_id: string | null; state: string }) => boolean) {
  const db = gw.gateway.services.database.db;
  for (let i = 0; i < 500; i++) {
    const attempt = await db.selectFrom('task_attempts').selectAll().where('task_id', '=', taskId).executeTakeFirst();
    if (attempt && ready(attempt)) return attempt;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`task ${taskId}: no attempt in the awaited state`);
}

function jobCalledBackAt(attemptId: string) {
  const job = [...kie.jobs.values()].find((j) => j.callbackUrl?.includes(`/callbacks/media/${attemptId}/`));
  assert.ok(job, `kie has a job for attempt ${attemptId}`);
  return job;
}

async function callBack(gw: TestGateway, attempt: { id: string; callback_token: string }, body: unknown): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${gw.url}/api/v1/callbacks/media/${attempt.id}/${attempt.callback_token}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
}

describeEachMode(
  'kie callbacks for an unanswered submit',
  (ctx) => {
    test('a callback naming another request’s job is not adopted and is shown to the operator; our own job’s is', async () => {
      const { key } = await ctx.gw.createUser(100);
      // Another task's job, accepted and still running.
      kie.script({ completeAfterMs: 60_000, noCallback: true });
      const other = await create(ctx.gw, key, 'someone else’s picture');
      const otherAttempt = await attemptOf(ctx.gw, other, (a) => a.upstream_id !== null);
      const otherJob = kie.jobs.get(otherAttempt.upstream_id ?? '');
      assert.ok(otherJob);

      // Our submit reaches kie, which creates the job, but its answer never comes.
      kie.script({ hangOnSubmit: true, completeAfterMs: 50, noCallback: true });
      const mine = await create(ctx.gw, key, 'my picture');
      const attempt = await attemptOf(ctx.gw, mine, (a) => a.state === 'unknown');
      const myJob = jobCalledBackAt(attempt.id);

      const foreign = kie.callbackFor(otherJob, 'succeeded');
      assert.ok(foreign);
      const refused = await callBack(ctx.gw, attempt, foreign.body);
      assert.deepEqual([refused.status, refused.body], [200, { ok: true, ignored: true }]);
      assert.equal((await attemptOf(ctx.gw, mine, () => true)).upstream_id, null, 'the other job is not adopted');
      const anomalies = await ctx.gw.admin<{ data: Array<{ reference: string; kind: string; reported: string; protocol: string; provider: string }> }>('GET', '/admin/v1/upstream-anomalies?provider=kie-main');
      assert.deepEqual(
        anomalies.data.filter((a) => a.reference === attempt.id).map((a) => [a.kind, a.reported, a.protocol]),
        [['foreign_job', otherJob.id, 'media']],
      );

      const own = kie.callbackFor(myJob, 'succeeded');
      assert.ok(own);
      const adopted = await callBack(ctx.gw, attempt, own.body);
      assert.deepEqual([adopted.status, adopted.body], [200, { ok: true }]);
      const task = await waitForTask(ctx.gw, key, mine);
      assert.equal(task.status, 'finished', task.errorMessage ?? '');
      assert.equal((await attemptOf(ctx.gw, mine, () => true)).upstream_id, myJob.id);
      assert.ok(task.files[0]?.fileUrl, 'our own job’s file');
    });
  },
  {
    configFile: {
      providers: {
        'kie-main': { type: 'kie', baseUrl: kie.url, apiKey: kie.apiKey, timeoutMs: 500, options: { pollIntervalMs: 50, reconcileWindowMs: 60_000 } },
      },
      routes: { 'z-image-turbo': [{ provider: 'kie-main', model: 'z-image' }] },
    },
  },
);
