import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { startFalFake } from '../fakes/media/fal.fake.ts';
import { startKieFake } from '../fakes/media/kie.fake.ts';
import { describeEachMode } from '../support/gateway.ts';
import { waitForTask } from '../support/tasks.ts';

const kie = await startKieFake();
const fal = await startFalFake();
after(async () => {
  await kie.close();
  await fal.close();
});

interface Attempt {
  provider: string;
  state: string;
  upstreamId: string | null;
  lateOutcome: string | null;
}

async function attemptsOf(gw: Parameters<typeof waitForTask>[0], key: string, taskId: string): Promise<Attempt[]> {
  return ((await gw.api(key, 'GET', `/api/v1/generation/${taskId}`)).body as { data: { attempts: Attempt[] } }).data.attempts;
}

describeEachMode(
  'failover across real upstream API styles (kie → fal fakes)',
  (ctx) => {
    test('kie accepts then fails, fal finishes; kie’s late success is recorded and ignored; one debit, no refund', async () => {
      const { key, userId } = await ctx.gw.createUser(100);
      kie.script({ acceptThenFail: { message: 'upstream generation failed' }, completeAfterMs: 30, lateSuccessAfterMs: 400 });
      fal.script({ completeAfterMs: 30 });
      const created = await ctx.gw.api(key, 'POST', '/api/v1/generation/create', { model: 'z-image-turbo', input: { prompt: 'two providers' } });
      const taskId = (created.body as { data: { taskId: string } }).data.taskId;
      const task = await waitForTask(ctx.gw, key, taskId);
      assert.equal(task.status, 'finished', task.errorMessage ?? '');
      const image = await fetch(task.files[0]?.fileUrl ?? '');
      assert.equal(image.status, 200);
      assert.equal(image.headers.get('content-type'), 'image/png');

      // kie's callback with the late success arrives after the task finished on fal.
      const deadline = Date.now() + 5000;
      let attempts = await attemptsOf(ctx.gw, key, taskId);
      while (!attempts[0]?.lateOutcome && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 50));
        attempts = await attemptsOf(ctx.gw, key, taskId);
      }
      assert.deepEqual(
        attempts.map((a) => [a.provider, a.state, a.lateOutcome]),
        [
          ['kie-main', 'failed', 'succeeded'],
          ['fal-reserve', 'succeeded', null],
        ],
      );
      const after = (await ctx.gw.api(key, 'GET', `/api/v1/task/status/${taskId}`)).body as { data: { files: Array<{ fileUrl: string }> } };
      assert.equal(after.data.files[0]?.fileUrl, task.files[0]?.fileUrl, 'the late result changed nothing');
      const ledger = await ctx.gw.admin<{ data: Array<{ kind: string }>; balanceMicroUsd: string }>('GET', `/admin/v1/users/${userId}/ledger`);
      assert.deepEqual(ledger.data.map((e) => e.kind).sort(), ['generation_debit', 'initial_credit']);
      assert.equal(ledger.balanceMicroUsd, String(1_000_000 - 10_000));
    });

    test('a kie submit that times out is an unknown outcome: never re-sent, abandoned after the reconcile window, fal finishes', async () => {
      const { key } = await ctx.gw.createUser(100);
      const before = kie.requestsTo('POST', '/api/v1/jobs/createTask').length;
      kie.script({ hangOnSubmit: true, noCallback: true });
      fal.script({ completeAfterMs: 20 });
      const created = await ctx.gw.api(key, 'POST', '/api/v1/generation/create', { model: 'z-image-turbo', input: { prompt: 'hung' } });
      const taskId = (created.body as { data: { taskId: string } }).data.taskId;
      const task = await waitForTask(ctx.gw, key, taskId, 20_000);
      assert.equal(task.status, 'finished');
      const attempts = await attemptsOf(ctx.gw, key, taskId);
      assert.deepEqual(attempts.map((a) => [a.provider, a.state]), [
        ['kie-main', 'abandoned'],
        ['fal-reserve', 'succeeded'],
      ]);
      assert.equal(kie.requestsTo('POST', '/api/v1/jobs/createTask').length - before, 1, 'the unknown submit was not re-sent');
    });

    test('the upstream callback wakes the task before its next poll', async () => {
      const { key } = await ctx.gw.createUser(100);
      kie.script({ completeAfterMs: 150 });
      const created = await ctx.gw.api(key, 'POST', '/api/v1/generation/create', { model: 'z-image-turbo', input: { prompt: 'call me' } });
      const taskId = (created.body as { data: { taskId: string } }).data.taskId;
      const started = Date.now();
      const task = await waitForTask(ctx.gw, key, taskId);
      assert.equal(task.status, 'finished');
      // kie is polled every 10 s here: finishing in well under that means the callback did it.
      assert.ok(Date.now() - started < 5000, `finished after ${Date.now() - started} ms`);
    });
  },
  {
    configFile: {
      providers: {
        'kie-main': { type: 'kie', baseUrl: kie.url, apiKey: kie.apiKey, timeoutMs: 800, options: { pollIntervalMs: 10_000, reconcileWindowMs: 1500 } },
        'fal-reserve': { type: 'fal', baseUrl: fal.url, apiKey: 'fal-test-key', options: { pollIntervalMs: 50 } },
      },
      routes: {
        'z-image-turbo': [
          { provider: 'kie-main', model: 'z-image' },
          { provider: 'fal-reserve', model: 'fal-ai/z-image/turbo' },
        ],
      },
    },
  },
);
