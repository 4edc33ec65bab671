/**
 * Routes with priority and weight for media (issue 32, item 2): the order is drawn once at create,
 * so tasks of one model start on either upstream of a shared priority; the task keeps its order.
 */
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

describeEachMode(
  'media routes with priority and weight (kie and fal fakes at one priority)',
  (ctx) => {
    test('tasks start on both upstreams of priority 0, each on one attempt, one debit each', async () => {
      const { key, userId } = await ctx.gw.createUser(100);
      const count = 24;
      const ids: string[] = [];
      for (let i = 0; i < count; i++) {
        const created = await ctx.gw.api(key, 'POST', '/api/v1/generation/create', { model: 'z-image-turbo', input: { prompt: `weighted ${i}` } });
        assert.equal(created.status, 200, JSON.stringify(created.body));
        ids.push((created.body as { data: { taskId: string } }).data.taskId);
      }
      const firsts: string[] = [];
      for (const id of ids) {
        const task = await waitForTask(ctx.gw, key, id);
        assert.equal(task.status, 'finished', task.errorMessage ?? '');
        const attempts = ((await ctx.gw.api(key, 'GET', `/api/v1/generation/${id}`)).body as { data: { attempts: Array<{ provider: string; state: string }> } }).data.attempts;
        assert.equal(attempts.length, 1);
        firsts.push(attempts[0]?.provider ?? '');
      }
      // The chance that one of them gets none of 24 tasks at 1:1 is about 1e-7.
      assert.deepEqual([...new Set(firsts)].sort(), ['fal-reserve', 'kie-main'], firsts.join(', '));
      const ledger = await ctx.gw.admin<{ data: Array<{ kind: string }> }>('GET', `/admin/v1/users/${userId}/ledger`);
      assert.equal(ledger.data.filter((e) => e.kind === 'generation_debit').length, count);
      assert.equal(ledger.data.filter((e) => e.kind === 'generation_refund').length, 0);
    });
  },
  {
    configFile: {
      providers: {
        'kie-main': { type: 'kie', baseUrl: kie.url, apiKey: kie.apiKey, options: { pollIntervalMs: 50 } },
        'fal-reserve': { type: 'fal', baseUrl: fal.url, apiKey: 'fal-test-key', options: { pollIntervalMs: 50 } },
      },
      routes: {
        'z-image-turbo': [
          { provider: 'kie-main', model: 'z-image', priority: 0, weight: 1 },
          { provider: 'fal-reserve', model: 'fal-ai/z-image/turbo', priority: 0, weight: 1 },
        ],
      },
    },
  },
);
