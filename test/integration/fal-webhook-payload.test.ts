/**
 * Issue 18, item 5: fal sends a webhook with `status: OK`, `payload: null` and a `payload_error` when it
 * could not attach the result. The request succeeded and its result is at the queue's response URL.
 * Such a webhook carries no outcome: the gateway asks the queue, which answers with the result. Before,
 * the verified webhook counted as a failure (here: a late success recorded as a late failure).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { verifyLedger } from '../../src/adapters/db/ledger/ledger-checks.ts';
import { type FalFake, startFalFake } from '../fakes/media/fal.fake.ts';
import { describeEachMode } from '../support/gateway.ts';
import { waitForTask } from '../support/tasks.ts';

let fal: FalFake;
let falUrl = '';
let falKey = '';
let falPublicKey = '';
before(async () => {
  fal = await startFalFake();
  fal.webhookPayloadError = true;
  falUrl = fal.url;
  falKey = fal.apiKey;
  falPublicKey = fal.publicKeyX;
});
after(async () => {
  await fal?.close();
});

interface Attempt {
  provider: string;
  state: string;
  lateOutcome: string | null;
}

describeEachMode(
  'a fal webhook that says OK without its payload',
  (ctx) => {
    test('is read from the queue: the late success is recorded as a success', async () => {
      const { key, userId } = await ctx.gw.createUser(1_000);
      // Fails first (its ERROR webhook wakes the task, which moves to the reserve), succeeds later.
      fal.script({ acceptThenFail: { message: 'runner lost' }, completeAfterMs: 30, lateSuccessAfterMs: 600 });
      const res = await ctx.gw.api(key, 'POST', '/api/v1/generation/create', { model: 'z-image-turbo', input: { prompt: 'late and large' } });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const taskId = (res.body as { data: { taskId: string } }).data.taskId;
      const task = await waitForTask(ctx.gw, key, taskId, 60_000);
      assert.equal(task.status, 'finished', task.errorMessage ?? '');
      const attemptsOf = async () => ((await ctx.gw.api(key, 'GET', `/api/v1/generation/${taskId}`)).body as { data: { attempts: Attempt[] } }).data.attempts;
      const deadline = Date.now() + 10_000;
      let attempts = await attemptsOf();
      while (!attempts[0]?.lateOutcome && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 50));
        attempts = await attemptsOf();
      }
      assert.deepEqual(
        attempts.map((a) => [a.provider, a.state, a.lateOutcome]),
        [
          ['fal-main', 'failed', 'succeeded'],
          ['local', 'succeeded', null],
        ],
      );
      const okHook = fal.callbacks.find((c) => (c.body as { status?: string }).status === 'OK' && c.url.includes('/callbacks/media/'));
      assert.ok(okHook, 'the OK webhook was delivered');
      assert.equal((okHook.body as { payload: unknown }).payload, null);
      const ledger = await ctx.gw.admin<{ data: Array<{ kind: string }> }>('GET', `/admin/v1/users/${userId}/ledger`);
      assert.deepEqual(ledger.data.map((e) => e.kind).sort(), ['generation_debit', 'initial_credit']);
      assert.deepEqual(await verifyLedger(ctx.gw.gateway.services.database.db), []);
    });
  },
  {
    configFile: {
      get providers() {
        // Polled rarely: the webhooks drive this test.
        return { 'fal-main': { type: 'fal', baseUrl: falUrl, apiKey: falKey, timeoutMs: 5_000, options: { pollIntervalMs: 5_000, webhookPublicKeys: [falPublicKey] } } };
      },
      routes: {
        'z-image-turbo': [
          { provider: 'fal-main', model: 'fal-ai/z-image/turbo' },
          { provider: 'local', model: 'z-image-turbo' },
        ],
      },
    },
  },
);
