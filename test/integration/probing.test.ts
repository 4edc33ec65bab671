import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { describeEachMode } from '../support/gateway.ts';
import { type MediaServer, startMediaServer } from '../support/media-server.ts';
import { waitForTask } from '../support/tasks.ts';

let media: MediaServer;
before(async () => {
  media = await startMediaServer();
});
after(() => media.close());

describeEachMode('measuring user media before charging', (ctx) => {
  const kling = (video: string) => ({
    model: 'kling-2.6-motion-control',
    input: { imageUrls: [media.imageUrl], videoUrls: [video], characterOrientation: 'video' },
  });

  test('the probed length of the reference video is billed: estimate equals the debit', async () => {
    const { key, userId } = await ctx.gw.createUser(1000);
    const estimate = await ctx.gw.api(key, 'POST', '/api/v1/generation/estimate', kling(media.videoUrl(7)));
    assert.equal(estimate.status, 200, JSON.stringify(estimate.body));
    // 0.07 $/s at 720p × 7 s: the clip's AAC padding (it probes to about 7.02 s) is not billed as an 8th second.
    const cost = (estimate.body as { cost: number }).cost;
    assert.equal(cost, 70_000 * 7);
    const created = await ctx.gw.api(key, 'POST', '/api/v1/generation/create', kling(media.videoUrl(7)));
    assert.equal(created.status, 200);
    const taskId = (created.body as { data: { taskId: string } }).data.taskId;
    const ledger = await ctx.gw.admin<{ data: Array<{ kind: string; amountMicroUsd: string }> }>('GET', `/admin/v1/users/${userId}/ledger`);
    assert.equal(ledger.data.find((e) => e.kind === 'generation_debit')?.amountMicroUsd, String(-cost));
    const task = await waitForTask(ctx.gw, key, taskId);
    assert.equal(task.status, 'finished');
  });

  test('an unreachable, unreadable or out-of-bounds file is a 400 before any charge', async () => {
    const { key, userId } = await ctx.gw.createUser(1000);
    const cases: Array<[string, RegExp]> = [
      [`${media.url}/missing.mp4`, /videoUrls\[0\].*could not be downloaded/],
      [`${media.url}/not-media.txt`, /videoUrls\[0\].*not a usable video/],
      [media.videoUrl(2), /videoUrls\[0\] must last 3 to 30 s/],
      ['http://10.255.255.1/clip.mp4', /videoUrls\[0\]/],
    ];
    for (const [url, message] of cases) {
      const res = await ctx.gw.api(key, 'POST', '/api/v1/generation/create', kling(url));
      assert.equal(res.status, 400, `${url}: ${JSON.stringify(res.body)}`);
      const error = (res.body as { error: { code: string; message: string } }).error;
      assert.equal(error.code, 'invalid_input');
      assert.match(error.message, message);
    }
    const ledger = await ctx.gw.admin<{ data: unknown[]; balanceMicroUsd: string }>('GET', `/admin/v1/users/${userId}/ledger`);
    assert.equal(ledger.data.length, 1, 'only the opening credit');
    assert.equal(ledger.balanceMicroUsd, '10000000');
  });

  test('V6 reference videos must total more than 1.8 s and less than 15.2 s', async () => {
    const { key } = await ctx.gw.createUser(1000);
    const seedance = (urls: string[]) => ({ model: 'seedance-2.0', input: { prompt: 'p', videoUrls: urls } });
    const tooLong = await ctx.gw.api(key, 'POST', '/api/v1/generation/estimate', seedance([media.videoUrl(8), media.videoUrl(8)]));
    assert.equal(tooLong.status, 400);
    assert.match((tooLong.body as { error: { message: string } }).error.message, /videoUrls/);
    const ok = await ctx.gw.api(key, 'POST', '/api/v1/generation/estimate', seedance([media.videoUrl(3)]));
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
  });
});
