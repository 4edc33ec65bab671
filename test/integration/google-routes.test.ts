/**
 * Issue 18, item 11: the first-party Google route. Nano Banana and Veo 3.1 go through the gateway to
 * the strict Gemini API fake and come back as files; a retryable Google error and a route refusal both
 * land on the reserve; every test leaves one debit (or none) and a ledger that verifies.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { verifyLedger } from '../../src/adapters/db/ledger/ledger-checks.ts';
import { startGoogleFake } from '../fakes/media/google.fake.ts';
import { describeEachMode, type TestGateway } from '../support/gateway.ts';
import { startMediaServer } from '../support/media-server.ts';
import { waitForTask } from '../support/tasks.ts';

const google = await startGoogleFake();
const media = await startMediaServer();
after(async () => {
  await google.close();
  await media.close();
});

const MODELS = ['nano-banana-2', 'nano-banana-pro', 'veo-3.1-fast', 'veo-3.1-quality', 'veo-3.1-lite'];

async function create(gw: TestGateway, key: string, model: string, input: Record<string, unknown>): Promise<string> {
  const res = await gw.api(key, 'POST', '/api/v1/generation/create', { model, input });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return (res.body as { data: { taskId: string } }).data.taskId;
}

async function attempts(gw: TestGateway, key: string, taskId: string): Promise<Array<[string, string]>> {
  const body = (await gw.api(key, 'GET', `/api/v1/generation/${taskId}`)).body as { data: { attempts: Array<{ provider: string; state: string }> } };
  return body.data.attempts.map((a) => [a.provider, a.state]);
}

/** Ends every cooling the gateway's health board holds, as a passing provider test would. */
async function healUpstreams(gw: TestGateway): Promise<void> {
  const board = gw.gateway.services.upstreamHealth;
  for (const record of board.records('')) await board.enable(record.subject);
}

async function ledgerKinds(gw: TestGateway, userId: string): Promise<string[]> {
  const ledger = await gw.admin<{ data: Array<{ kind: string }> }>('GET', `/admin/v1/users/${userId}/ledger`);
  return ledger.data.map((e) => e.kind).sort();
}

describeEachMode(
  'Google (Gemini API) routes against the strict fake',
  (ctx) => {
    test('Nano Banana 2 and Pro images and Veo 3.1 videos come back from Google as files', { timeout: 120_000 }, async () => {
      const { key, userId } = await ctx.gw.createUser(10_000);
      const cases: Array<[string, Record<string, unknown>, string]> = [
        ['nano-banana-2', { prompt: 'a banana', size: '8:1', resolution: '512px' }, 'image/png'],
        ['nano-banana-pro', { prompt: 'a banana', urls: [media.imageUrl], resolution: '4K' }, 'image/png'],
        ['veo-3.1-fast', { prompt: 'a fox', urls: [media.imageUrl], generationType: 'frame', aspectRatio: '9:16', resolution: '1080p' }, 'video/mp4'],
        ['veo-3.1-lite', { prompt: 'a fox', resolution: '720p' }, 'video/mp4'],
      ];
      for (const [model, input, type] of cases) {
        const taskId = await create(ctx.gw, key, model, input);
        const task = await waitForTask(ctx.gw, key, taskId, 60_000);
        assert.equal(task.status, 'finished', `${model}: ${task.errorMessage}`);
        assert.deepEqual(await attempts(ctx.gw, key, taskId), [['google-main', 'succeeded']]);
        const file = await fetch(task.files[0]?.fileUrl ?? '');
        assert.equal(file.status, 200);
        assert.equal(file.headers.get('content-type'), type, model);
        assert.ok((await file.arrayBuffer()).byteLength > 0);
      }
      const frames = google.callsTo('predictLongRunning').find((c) => c.model === 'veo-3.1-fast-generate-preview');
      assert.ok(frames, 'Veo 3.1 Fast went to predictLongRunning under its Google id');
      assert.deepEqual(frames.body.parameters, { aspectRatio: '9:16', resolution: '1080p', durationSeconds: 8 });
      assert.deepEqual(await ledgerKinds(ctx.gw, userId), ['generation_debit', 'generation_debit', 'generation_debit', 'generation_debit', 'initial_credit']);
      assert.deepEqual(await verifyLedger(ctx.gw.gateway.services.database.db), []);
    });

    test('a retryable Google error (503 at submit, a failed operation) fails over to the reserve: one debit, no refund', { timeout: 120_000 }, async () => {
      const { key, userId } = await ctx.gw.createUser(10_000);
      google.script({ failOnSubmit: { status: 503, body: { error: { code: 503, message: 'The model is overloaded. Please try again later.', status: 'UNAVAILABLE' } } } });
      const image = await create(ctx.gw, key, 'nano-banana-2', { prompt: 'busy' });
      assert.equal((await waitForTask(ctx.gw, key, image)).status, 'finished');
      assert.deepEqual(await attempts(ctx.gw, key, image), [
        ['google-main', 'failed'],
        ['local', 'succeeded'],
      ]);
      // The 503 cooled Google's key and entry: the next task is routed to the reserve first, Google untouched.
      const sent = google.requests.length;
      const whileCooling = await create(ctx.gw, key, 'nano-banana-2', { prompt: 'still busy?' });
      assert.equal((await waitForTask(ctx.gw, key, whileCooling)).status, 'finished');
      assert.deepEqual(await attempts(ctx.gw, key, whileCooling), [['local', 'succeeded']]);
      assert.equal(google.requests.length, sent, 'a cooling upstream is skipped while another route is healthy');
      await healUpstreams(ctx.gw);
      google.script({ acceptThenFail: { code: 13, message: 'internal error' }, completeAfterMs: 20 });
      const video = await create(ctx.gw, key, 'veo-3.1-lite', { prompt: 'flaky', resolution: '720p' });
      assert.equal((await waitForTask(ctx.gw, key, video, 90_000)).status, 'finished');
      assert.deepEqual(await attempts(ctx.gw, key, video), [
        ['google-main', 'failed'],
        ['local', 'succeeded'],
      ]);
      assert.deepEqual(await ledgerKinds(ctx.gw, userId), ['generation_debit', 'generation_debit', 'generation_debit', 'initial_credit']);
      assert.deepEqual(await verifyLedger(ctx.gw.gateway.services.database.db), []);
      await healUpstreams(ctx.gw);
    });

    test('an option Google does not document for the model skips Google before dispatch: the reserve serves it, Google receives nothing', { timeout: 120_000 }, async () => {
      const { key, userId } = await ctx.gw.createUser(10_000);
      const sent = google.requests.length;
      const pro512 = await create(ctx.gw, key, 'nano-banana-pro', { prompt: 'small', resolution: '512px' });
      const lite4k = await create(ctx.gw, key, 'veo-3.1-lite', { prompt: 'big', resolution: '4k' });
      for (const taskId of [pro512, lite4k]) {
        const task = await waitForTask(ctx.gw, key, taskId, 90_000);
        assert.equal(task.status, 'finished', task.errorMessage ?? '');
        assert.deepEqual(await attempts(ctx.gw, key, taskId), [['local', 'succeeded']]);
      }
      assert.equal(google.requests.length, sent, 'nothing reached Google');
      assert.deepEqual(await ledgerKinds(ctx.gw, userId), ['generation_debit', 'generation_debit', 'initial_credit']);
      assert.deepEqual(await verifyLedger(ctx.gw.gateway.services.database.db), []);
    });

    test('a safety block is final: not tried elsewhere, refunded', { timeout: 60_000 }, async () => {
      const { key, userId } = await ctx.gw.createUser(10_000);
      await healUpstreams(ctx.gw);
      google.script({ acceptThenFail: { code: 'IMAGE_SAFETY' } });
      const taskId = await create(ctx.gw, key, 'nano-banana-2', { prompt: 'not allowed' });
      const task = await waitForTask(ctx.gw, key, taskId);
      assert.equal(task.status, 'failed');
      assert.deepEqual(await attempts(ctx.gw, key, taskId), [['google-main', 'failed']]);
      assert.deepEqual(await ledgerKinds(ctx.gw, userId), ['generation_debit', 'generation_refund', 'initial_credit']);
      assert.deepEqual(await verifyLedger(ctx.gw.gateway.services.database.db), []);
    });
  },
  {
    configFile: {
      providers: { 'google-main': { type: 'google', baseUrl: google.url, apiKey: google.apiKey, timeoutMs: 5_000, options: { pollIntervalMs: 20, retryPollMs: 20 } } },
      routes: Object.fromEntries(
        MODELS.map((id) => [
          id,
          [
            { provider: 'google-main', model: id },
            { provider: 'local', model: id },
          ],
        ]),
      ),
    },
  },
);
