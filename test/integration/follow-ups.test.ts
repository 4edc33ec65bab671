import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachMode } from '../support/gateway.ts';
import { waitForTask } from '../support/tasks.ts';

interface Detail {
  attempts: Array<{ provider: string; state: string }>;
}

describeEachMode(
  'follow-up actions stay on the parent’s provider',
  (ctx) => {
    test('an upscale of a grid that ran on the reserve provider runs there too, not on the primary', async () => {
      const { key } = await ctx.gw.createUser(100);
      const parent = await ctx.gw.api(key, 'POST', '/api/v1/generation/create', { model: 'midjourney', input: { prompt: 'castle in the clouds' } });
      const parentId = (parent.body as { data: { taskId: string } }).data.taskId;
      assert.equal((await waitForTask(ctx.gw, key, parentId)).status, 'finished');
      const parentDetail = ((await ctx.gw.api(key, 'GET', `/api/v1/generation/${parentId}`)).body as { data: Detail }).data;
      assert.deepEqual(parentDetail.attempts.map((a) => [a.provider, a.state]), [
        ['mj-primary', 'failed'],
        ['mj-reserve', 'succeeded'],
      ]);

      const child = await ctx.gw.api(key, 'POST', '/api/v1/generation/create', { model: 'midjourney', input: { action: 'upscale', parentTaskId: parentId, index: 2 } });
      assert.equal(child.status, 200, JSON.stringify(child.body));
      const childId = (child.body as { data: { taskId: string } }).data.taskId;
      assert.equal((await waitForTask(ctx.gw, key, childId)).status, 'finished');
      const childDetail = ((await ctx.gw.api(key, 'GET', `/api/v1/generation/${childId}`)).body as { data: Detail }).data;
      assert.deepEqual(childDetail.attempts.map((a) => [a.provider, a.state]), [['mj-reserve', 'succeeded']]);
    });

    test('a follow-up must name a finished task of the same user', async () => {
      const alice = await ctx.gw.createUser(100);
      const bob = await ctx.gw.createUser(100);
      const parent = await ctx.gw.api(alice.key, 'POST', '/api/v1/generation/create', { model: 'midjourney', input: { prompt: 'mine' } });
      const parentId = (parent.body as { data: { taskId: string } }).data.taskId;
      await waitForTask(ctx.gw, alice.key, parentId);
      const stolen = await ctx.gw.api(bob.key, 'POST', '/api/v1/generation/create', { model: 'midjourney', input: { action: 'upscale', parentTaskId: parentId, index: 1 } });
      assert.equal(stolen.status, 400);
      assert.match((stolen.body as { error: { message: string } }).error.message, /not found/);
      const missing = await ctx.gw.api(alice.key, 'POST', '/api/v1/generation/create', { model: 'midjourney', input: { action: 'upscale', parentTaskId: 'task_nope', index: 1 } });
      assert.equal(missing.status, 400);
      const me = (await ctx.gw.api(bob.key, 'GET', '/api/v1/user/me')).body as { data: { balance: number } };
      assert.equal(me.data.balance, 100, 'refused before any charge');
    });
  },
  {
    configFile: {
      providers: { 'mj-primary': { type: 'local', options: { failureRate: 1 } }, 'mj-reserve': { type: 'local' } },
      routes: { midjourney: ['mj-primary', 'mj-reserve'] },
    },
  },
);
