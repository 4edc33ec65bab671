/**
 * An option kie does not document (REFERENCE_2_VIDEO on Veo 3.1 Quality) drops the kie route at
 * create: the request goes to the next route that can serve it, nothing is sent to kie, one debit.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { verifyLedger } from '../../src/adapters/db/ledger/ledger-checks.ts';
import { type KieFake, startKieFake } from '../fakes/media/kie.fake.ts';
import { describeEachMode } from '../support/gateway.ts';
import { type MediaServer, startMediaServer } from '../support/media-server.ts';
import { waitForTask } from '../support/tasks.ts';

let kie: KieFake;
let media: MediaServer;
let kieUrl = '';
let kieKey = '';
before(async () => {
  kie = await startKieFake({ callbacks: false });
  kieUrl = kie.url;
  kieKey = kie.apiKey;
  media = await startMediaServer();
});
after(async () => {
  await kie?.close();
  await media?.close();
});

describeEachMode(
  'a route that refuses an option is skipped before dispatch',
  (ctx) => {
    test('veo-3.1-quality with reference images goes to the reserve; kie receives nothing', async () => {
      const { key, userId } = await ctx.gw.createUser(1_000);
      const sent = kie.requests.length;
      const res = await ctx.gw.api(key, 'POST', '/api/v1/generation/create', {
        model: 'veo-3.1-quality',
        input: { prompt: 'refs', urls: [media.imageUrl], generationType: 'reference', resolution: '720p' },
      });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const taskId = (res.body as { data: { taskId: string } }).data.taskId;
      const task = await waitForTask(ctx.gw, key, taskId, 120_000);
      assert.equal(task.status, 'finished', task.errorMessage ?? '');
      const attempts = ((await ctx.gw.api(key, 'GET', `/api/v1/generation/${taskId}`)).body as { data: { attempts: Array<{ provider: string }> } }).data.attempts;
      assert.deepEqual(attempts.map((a) => a.provider), ['local']);
      assert.equal(kie.requests.length, sent, 'nothing reached kie');
      const ledger = await ctx.gw.admin<{ data: Array<{ kind: string }> }>('GET', `/admin/v1/users/${userId}/ledger`);
      assert.deepEqual(ledger.data.map((e) => e.kind).sort(), ['generation_debit', 'initial_credit']);
      assert.deepEqual(await verifyLedger(ctx.gw.gateway.services.database.db), []);
    });
  },
  {
    configFile: {
      get providers() {
        return { 'kie-main': { type: 'kie', baseUrl: kieUrl, apiKey: kieKey, options: { pollIntervalMs: 20 } } };
      },
      routes: { 'veo-3.1-quality': [{ provider: 'kie-main', model: 'veo-3.1-quality' }, { provider: 'local', model: 'veo-3.1-quality' }] },
    },
  },
);
