/**
 * Issue 18, item 1: GPT Image on Replicate makes only 1:1, 3:2 and 2:3 at 1k. A size or tier it cannot
 * make drops the Replicate route at create: the reserve serves the request, Replicate receives nothing,
 * one debit. Before, Replicate answered 422 (not retryable): the task failed without trying the reserve.
 * openai/gpt-image-1 without the operator's OpenAI key is dropped the same way.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { verifyLedger } from '../../src/adapters/db/ledger/ledger-checks.ts';
import { type ReplicateFake, startReplicateFake } from '../fakes/media/replicate.fake.ts';
import { describeEachMode } from '../support/gateway.ts';
import { waitForTask } from '../support/tasks.ts';

let replicate: ReplicateFake;
let replicateUrl = '';
let replicateToken = '';
before(async () => {
  replicate = await startReplicateFake({ callbacks: false });
  replicate.defaultBehaviour = { completeAfterMs: 20 };
  replicateUrl = `${replicate.url}/v1`;
  replicateToken = replicate.apiToken;
});
after(async () => {
  await replicate?.close();
});

interface Attempt {
  provider: string;
  state: string;
}

describeEachMode(
  'GPT Image on Replicate: what the route cannot make goes to the reserve before any charge',
  (ctx) => {
    for (const [label, input, served] of [
      ['16:9 (Replicate has 1:1, 3:2, 2:3)', { size: '16:9' }, 'local'],
      ['4k (no resolution input there)', { size: '1:1', resolution: '4k' }, 'local'],
      ['auto at 1k (sent as 1:1)', { size: 'auto' }, 'replicate'],
    ] as const) {
      test(label, async () => {
        const { key, userId } = await ctx.gw.createUser(1_000);
        const sent = replicate.requestsTo('POST', '/v1/models/').length;
        const res = await ctx.gw.api(key, 'POST', '/api/v1/generation/create', { model: 'gpt-image-1.5', input: { prompt: 'a fox', ...input } });
        assert.equal(res.status, 200, JSON.stringify(res.body));
        const taskId = (res.body as { data: { taskId: string } }).data.taskId;
        const task = await waitForTask(ctx.gw, key, taskId, 60_000);
        assert.equal(task.status, 'finished', task.errorMessage ?? '');
        const attempts = ((await ctx.gw.api(key, 'GET', `/api/v1/generation/${taskId}`)).body as { data: { attempts: Attempt[] } }).data.attempts;
        assert.deepEqual(
          attempts.map((a) => [a.provider, a.state]),
          [[served, 'succeeded']],
        );
        assert.equal(replicate.requestsTo('POST', '/v1/models/').length - sent, served === 'replicate' ? 1 : 0);
        const ledger = await ctx.gw.admin<{ data: Array<{ kind: string }> }>('GET', `/admin/v1/users/${userId}/ledger`);
        assert.deepEqual(ledger.data.map((e) => e.kind).sort(), ['generation_debit', 'initial_credit']);
        assert.deepEqual(await verifyLedger(ctx.gw.gateway.services.database.db), []);
      });
    }

    test('a Replicate-only route answers 400 naming the size, and charges nothing', async () => {
      const { key, userId } = await ctx.gw.createUser(1_000);
      const res = await ctx.gw.api(key, 'POST', '/api/v1/generation/create', { model: 'gpt-image-2', input: { prompt: 'a fox', size: '9:16' } });
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.equal((res.body as { error: { param?: string } }).error.param, 'input.size');
      const ledger = await ctx.gw.admin<{ data: Array<{ kind: string }> }>('GET', `/admin/v1/users/${userId}/ledger`);
      assert.deepEqual(ledger.data.map((e) => e.kind), ['initial_credit']);
      assert.deepEqual(await verifyLedger(ctx.gw.gateway.services.database.db), []);
    });

    test('openai/gpt-image-1 without the operator’s OpenAI key: the route is skipped, 503 when it is the only one', async () => {
      const { key } = await ctx.gw.createUser(1_000);
      const res = await ctx.gw.api(key, 'POST', '/api/v1/generation/create', { model: 'gpt-image-2-official', input: { prompt: 'a fox', size: '1:1' } });
      assert.equal(res.status, 503, JSON.stringify(res.body));
      assert.match((res.body as { error: { message: string } }).error.message, /openaiApiKey/u);
      assert.deepEqual(await verifyLedger(ctx.gw.gateway.services.database.db), []);
    });
  },
  {
    configFile: {
      get providers() {
        return { replicate: { type: 'replicate', baseUrl: replicateUrl, apiKey: replicateToken, timeoutMs: 5_000, options: { pollIntervalMs: 20, retryPollMs: 20 } } };
      },
      routes: {
        'gpt-image-1.5': [
          { provider: 'replicate', model: 'openai/gpt-image-1.5' },
          { provider: 'local', model: 'gpt-image-1.5' },
        ],
        'gpt-image-2': [{ provider: 'replicate', model: 'openai/gpt-image-2' }],
        'gpt-image-2-official': [{ provider: 'replicate', model: 'openai/gpt-image-1' }],
      },
    },
  },
);
