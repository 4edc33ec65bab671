import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachMode } from '../support/gateway.ts';
import { waitForTask } from '../support/tasks.ts';

/** Usage by API key (issue 13, item 12): GET /api/v1/stats splits generations and chat requests by the key that made them. */
describeEachMode('usage statistics by API key', (ctx) => {
  test('each key has its own count and spend; refunds cost nothing', async () => {
    const { userId, key: first } = await ctx.gw.createUser(500);
    const second = await ctx.gw.admin<{ key: string; id?: string; keyId?: string }>('POST', `/admin/v1/users/${userId}/api-keys`, {});
    const created = await ctx.gw.api(first, 'POST', '/api/v1/generation/create', { model: 'z-image-turbo', input: { prompt: 'by key' } });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    await waitForTask(ctx.gw, first, (created.body as { data: { taskId: string } }).data.taskId);
    const chat = await ctx.gw.api(second.key, 'POST', '/api/v1/chat/completions', { model: 'gpt-5.4-mini', messages: [{ role: 'user', content: 'hello' }] });
    assert.equal(chat.status, 200, JSON.stringify(chat.body));
    let stats: { totals: { spent: number }; byApiKey: Array<{ key: string; count: number; cost: number }> } | undefined;
    for (let i = 0; i < 100; i++) {
      stats = (await ctx.gw.api(first, 'GET', '/api/v1/stats')).body as typeof stats;
      if ((stats?.byApiKey.reduce((n, b) => n + b.count, 0) ?? 0) >= 2) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.ok(stats);
    // The buckets are exactly the user's two keys, one request each.
    const keyIds = (await ctx.gw.gateway.services.database.db.selectFrom('api_keys').select('id').where('user_id', '=', userId).execute()).map((k) => k.id);
    assert.deepEqual(stats.byApiKey.map((b) => b.key).sort(), [...keyIds].sort());
    for (const bucket of stats.byApiKey) assert.equal(bucket.count, 1);
    const total = stats.byApiKey.reduce((n, b) => n + b.cost, 0);
    assert.ok(Math.abs(total - stats.totals.spent) < 1e-9, 'the keys add up to the spend');
  });
});
