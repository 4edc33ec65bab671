import assert from 'node:assert/strict';
import { kyselyTaskPorts } from '../../src/adapters/db/stores/task-store.ts';
import { test } from 'node:test';
import { pino } from 'pino';
import { terminalHook } from '../../src/gateway.ts';
import { createRetentionSweeper } from '../../src/services/generation/retention-sweeper.ts';
import { describeEachMode } from '../support/gateway.ts';
import { waitForTask } from '../support/tasks.ts';

const DAY = 24 * 60 * 60 * 1000;

describeEachMode('file retention', (ctx) => {
  test('files work for 3 days; then they are deleted and the task becomes expired, once', async () => {
    const { key, userId } = await ctx.gw.createUser(100);
    const created = await ctx.gw.api(key, 'POST', '/api/v1/generation/create', { model: 'z-image-turbo', input: { prompt: 'fleeting' } });
    const taskId = (created.body as { data: { taskId: string } }).data.taskId;
    const task = await waitForTask(ctx.gw, key, taskId);
    const fileUrl = task.files[0]?.fileUrl ?? '';
    assert.match(fileUrl, /\/files\/[a-z2-7]{32}\//, 'an unguessable URL');
    const served = await fetch(fileUrl);
    assert.equal(served.status, 200);
    const maxAge = Number(/max-age=(\d+)/.exec(served.headers.get('cache-control') ?? '')?.[1]);
    assert.ok(maxAge > 3 * 24 * 3600 - 600 && maxAge <= 3 * 24 * 3600, `cached no longer than the retention (${maxAge})`);

    const { services } = ctx.gw.gateway;
    const sweepAt = (offsetMs: number) =>
      createRetentionSweeper({ ...kyselyTaskPorts(services.database.db), blobs: services.blobs, onTerminal: terminalHook(services), logger: pino({ level: 'silent' }), intervalMs: 60_000, now: () => Date.now() + offsetMs })();

    await sweepAt(2 * DAY);
    assert.equal((await fetch(fileUrl)).status, 200, 'still there after 2 days');
    assert.equal(((await ctx.gw.api(key, 'GET', `/api/v1/task/status/${taskId}`)).body as { data: { status: string } }).data.status, 'finished');

    const outcome = await sweepAt(3 * DAY + 60_000);
    assert.equal(outcome.kind, 'again');
    assert.equal((await fetch(fileUrl)).status, 404, 'deleted after 3 days');
    const after = (await ctx.gw.api(key, 'GET', `/api/v1/task/status/${taskId}`)).body as { data: { status: string; files: unknown[] } };
    assert.equal(after.data.status, 'expired');
    assert.deepEqual(after.data.files, []);
    await sweepAt(4 * DAY);
    const ledger = (await ctx.gw.admin<{ data: Array<{ kind: string }> }>('GET', `/admin/v1/users/${userId}/ledger`)).data;
    assert.deepEqual(ledger.map((e) => e.kind).sort(), ['generation_debit', 'initial_credit'], 'expiry moves no money');
  });
});
