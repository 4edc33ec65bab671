import assert from 'node:assert/strict';
import { test } from 'node:test';
import sharp from 'sharp';
import { describeEachMode } from '../support/gateway.ts';
import { waitForTask } from '../support/tasks.ts';

describeEachMode('media generation on the local provider', (ctx) => {
  test('create debits the estimate, the task finishes with a real image at the requested size', async () => {
    const { key, userId } = await ctx.gw.createUser(100);
    const body = { model: 'nano-banana-2', input: { prompt: 'a lighthouse at dusk', size: '16:9', resolution: '1K' } };
    const estimate = ((await ctx.gw.api(key, 'POST', '/api/v1/generation/estimate', body)).body as { cost: number }).cost;
    const created = await ctx.gw.api(key, 'POST', '/api/v1/generation/create', body);
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const data = (created.body as { code: number; data: { taskId: string; status: string; createdAt: string } }).data;
    assert.equal(data.status, 'not_started');
    assert.match(data.taskId, /^task_/);
    const me = (await ctx.gw.api(key, 'GET', '/api/v1/user/me')).body as { data: { balance: number } };
    assert.equal(me.data.balance, Math.floor(100 - estimate / 10_000));
    const ledger = await ctx.gw.admin<{ balanceMicroUsd: string; data: Array<{ kind: string; amountMicroUsd: string }> }>('GET', `/admin/v1/users/${userId}/ledger`);
    assert.equal(ledger.balanceMicroUsd, String(1_000_000 - estimate));
    assert.deepEqual(ledger.data[0], { ...ledger.data[0], kind: 'generation_debit', amountMicroUsd: String(-estimate) });

    const task = await waitForTask(ctx.gw, key, data.taskId);
    assert.equal(task.status, 'finished', task.errorMessage ?? '');
    assert.equal(task.files.length, 1);
    assert.equal(task.files[0]?.fileType, 'image');
    const file = await fetch(task.files[0]?.fileUrl ?? '');
    assert.equal(file.status, 200);
    const meta = await sharp(Buffer.from(await file.arrayBuffer())).metadata();
    assert.equal(meta.width, 1024);
    assert.equal(meta.height, 576);
  });

  test('another user cannot see the task (404 task_not_found, type NotFound)', async () => {
    const alice = await ctx.gw.createUser(100);
    const bob = await ctx.gw.createUser(100);
    const created = await ctx.gw.api(alice.key, 'POST', '/api/v1/generation/create', { model: 'z-image-turbo', input: { prompt: 'x' } });
    const taskId = (created.body as { data: { taskId: string } }).data.taskId;
    const res = await ctx.gw.api(bob.key, 'GET', `/api/v1/task/status/${taskId}`);
    assert.equal(res.status, 404);
    const error = (res.body as { error: { code: string; type: string } }).error;
    assert.equal(error.code, 'task_not_found');
    assert.equal(error.type, 'NotFound');
    assert.equal((await ctx.gw.api(bob.key, 'GET', `/api/v1/generation/${taskId}`)).status, 404);
  });

  test('402 insufficient_balance changes nothing', async () => {
    const { key, userId } = await ctx.gw.createUser(1);
    const res = await ctx.gw.api(key, 'POST', '/api/v1/generation/create', { model: 'sora-2', input: { prompt: 'x' } });
    assert.equal(res.status, 402);
    assert.equal((res.body as { error: { code: string } }).error.code, 'insufficient_balance');
    const ledger = await ctx.gw.admin<{ data: unknown[]; balanceMicroUsd: string }>('GET', `/admin/v1/users/${userId}/ledger`);
    assert.equal(ledger.balanceMicroUsd, '10000');
    assert.equal(ledger.data.length, 1);
  });

  test('the same Idempotency-Key and body return the same task, charged once; another body is 409', async () => {
    const { key } = await ctx.gw.createUser(100);
    const send = (input: Record<string, unknown>, idem: string) =>
      fetch(`${ctx.gw.url}/api/v1/generation/create`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': idem },
        body: JSON.stringify({ model: 'z-image-turbo', input }),
      });
    const first = (await (await send({ prompt: 'same' }, 'k-1')).json()) as { data: { taskId: string } };
    const again = (await (await send({ prompt: 'same' }, 'k-1')).json()) as { data: { taskId: string } };
    assert.equal(again.data.taskId, first.data.taskId);
    const conflict = await send({ prompt: 'different' }, 'k-1');
    assert.equal(conflict.status, 409);
    const me = (await ctx.gw.api(key, 'GET', '/api/v1/user/me')).body as { data: { balance: number } };
    assert.equal(me.data.balance, 99, 'one z-image-turbo (1 cent) charged once');
  });

  test('GET /generation/{id} shows the request, the price and every attempt', async () => {
    const { key } = await ctx.gw.createUser(100);
    const created = await ctx.gw.api(key, 'POST', '/api/v1/generation/create', { model: 'grok-imagine-video', input: { prompt: 'waves', duration: 6 } });
    const taskId = (created.body as { data: { taskId: string } }).data.taskId;
    await waitForTask(ctx.gw, key, taskId);
    const detail = (await ctx.gw.api(key, 'GET', `/api/v1/generation/${taskId}`)).body as {
      data: { prompt: string; resolution: string; cost: { microUsd: string }; attempts: Array<{ provider: string; state: string }>; files: unknown[] };
    };
    assert.equal(detail.data.prompt, 'waves');
    assert.equal(detail.data.resolution, '480p');
    assert.equal(detail.data.cost.microUsd, '300000');
    assert.deepEqual(detail.data.attempts.map((a) => [a.provider, a.state]), [['local', 'succeeded']]);
    assert.equal(detail.data.files.length, 1);
  });
});
