/**
 * Issue 30 ("requests the real upstream refuses or serves short"): each request below cannot be made
 * as asked on its first route (kie's or fal's published pages), so create drops that route and the
 * reserve serves it: nothing is sent to the refusing upstream, one debit, the task finishes.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { verifyLedger } from '../../src/adapters/db/ledger/ledger-checks.ts';
import { type FalFake, startFalFake } from '../fakes/media/fal.fake.ts';
import { type KieFake, startKieFake } from '../fakes/media/kie.fake.ts';
import { type OpenAiFake, startOpenAiFake } from '../fakes/media/openai.fake.ts';
import { describeEachMode } from '../support/gateway.ts';
import { type MediaServer, startMediaServer } from '../support/media-server.ts';
import { waitForTask } from '../support/tasks.ts';

let kie: KieFake;
let fal: FalFake;
let openai: OpenAiFake;
let media: MediaServer;
const urls = { kie: '', kieKey: '', fal: '', falKey: '', openai: '', openaiKey: '' };
before(async () => {
  [kie, fal, openai, media] = await Promise.all([startKieFake({ callbacks: false }), startFalFake({ callbacks: false }), startOpenAiFake({ callbacks: false }), startMediaServer()]);
  Object.assign(urls, { kie: kie.url, kieKey: kie.apiKey, fal: fal.url, falKey: fal.apiKey, openai: `${openai.url}/v1`, openaiKey: openai.apiKey });
});
after(async () => {
  await Promise.all([kie?.close(), fal?.close(), openai?.close(), media?.close()]);
});

const CASES: ReadonlyArray<{ item: string; model: string; input: () => Record<string, unknown>; upstream: () => { requests: unknown[] } }> = [
  { item: '9: gpt-image-2 3:1 at 2k (kie: 2K/4K do not take 3:1)', model: 'gpt-image-2', input: () => ({ prompt: 'p', size: '3:1', resolution: '2k' }), upstream: () => kie },
  // kie (no resolution) and OpenAI (fixed sizes: 4k would be 1536x1024 at quality high) both refuse.
  { item: '3 and 9: gpt-image-1.5 at 4k (kie: no resolution; OpenAI: 1536 px at most)', model: 'gpt-image-1.5', input: () => ({ prompt: 'p', resolution: '4k' }), upstream: () => ({ requests: [...kie.requests, ...openai.requests] }) },
  // OpenAI's own Sora API is gone (a route refusal, nothing sent); the compatible base has no 16 s.
  { item: '11: sora-2-official 16 s (api.openai.com: shut down; VideoSeconds 4, 8, 12)', model: 'sora-2-official', input: () => ({ prompt: 'p', duration: 16 }), upstream: () => openai },
  { item: '10: veo-3.1-lite at 4k (fal: 720p, 1080p)', model: 'veo-3.1-lite', input: () => ({ prompt: 'p', resolution: '4k' }), upstream: () => fal },
  {
    item: '10: veo-3.1-fast references (fal: no Fast reference-to-video)',
    model: 'veo-3.1-fast',
    input: () => ({ prompt: 'p', urls: [media.imageUrl], generationType: 'reference' }),
    upstream: () => fal,
  },
  { item: '12: nano-banana-2 at 512px (kie: 1K, 2K, 4K)', model: 'nano-banana-2', input: () => ({ prompt: 'p', resolution: '512px' }), upstream: () => kie },
  { item: '12: suno v3.5 (kie: no V3_5)', model: 'suno', input: () => ({ gptDescriptionPrompt: 'a calm song', mv: 'v3.5' }), upstream: () => kie },
];

const FIRST: Readonly<Record<string, { provider: string; model: string }>> = {
  'gpt-image-2': { provider: 'kie-main', model: 'gpt-image-2' },
  'gpt-image-1.5': { provider: 'kie-main', model: 'gpt-image-1.5' },
  'sora-2-official': { provider: 'openai-real', model: 'sora-2' },
  'veo-3.1-lite': { provider: 'fal-main', model: 'fal-ai/veo3.1/lite' },
  'veo-3.1-fast': { provider: 'fal-main', model: 'fal-ai/veo3.1/fast' },
  'nano-banana-2': { provider: 'kie-main', model: 'nano-banana-2' },
  suno: { provider: 'kie-main', model: 'suno' },
};

/** Second routes, before local. */
const SECOND: Readonly<Record<string, { provider: string; model: string }>> = {
  'gpt-image-1.5': { provider: 'openai-compatible', model: 'gpt-image-1.5' },
  'sora-2-official': { provider: 'openai-compatible', model: 'sora-2' },
};

describeEachMode(
  'issue 30: a route that would refuse or serve short is skipped; the reserve serves the request',
  (ctx) => {
    for (const c of CASES) {
      test(c.item, async () => {
        const { key, userId } = await ctx.gw.createUser(100_000);
        const sent = c.upstream().requests.length;
        const res = await ctx.gw.api(key, 'POST', '/api/v1/generation/create', { model: c.model, input: c.input() });
        assert.equal(res.status, 200, JSON.stringify(res.body));
        const taskId = (res.body as { data: { taskId: string } }).data.taskId;
        const task = await waitForTask(ctx.gw, key, taskId, 120_000);
        assert.equal(task.status, 'finished', task.errorMessage ?? '');
        const attempts = ((await ctx.gw.api(key, 'GET', `/api/v1/generation/${taskId}`)).body as { data: { attempts: Array<{ provider: string }> } }).data.attempts;
        assert.deepEqual(attempts.map((a) => a.provider), ['local']);
        assert.equal(c.upstream().requests.length, sent, 'nothing reached the refusing upstream');
        const ledger = await ctx.gw.admin<{ data: Array<{ kind: string }> }>('GET', `/admin/v1/users/${userId}/ledger`);
        assert.deepEqual(ledger.data.map((e) => e.kind).sort(), ['generation_debit', 'initial_credit']);
        assert.deepEqual(await verifyLedger(ctx.gw.gateway.services.database.db), []);
      });
    }

    test('11: sora-2-official 8 s skips api.openai.com (Sora shut down there) and is made on the compatible base', async () => {
      const { key } = await ctx.gw.createUser(100_000);
      const res = await ctx.gw.api(key, 'POST', '/api/v1/generation/create', { model: 'sora-2-official', input: { prompt: 'p', duration: 8 } });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const taskId = (res.body as { data: { taskId: string } }).data.taskId;
      const task = await waitForTask(ctx.gw, key, taskId, 120_000);
      assert.equal(task.status, 'finished', task.errorMessage ?? '');
      const attempts = ((await ctx.gw.api(key, 'GET', `/api/v1/generation/${taskId}`)).body as { data: { attempts: Array<{ provider: string }> } }).data.attempts;
      assert.deepEqual(attempts.map((a) => a.provider), ['openai-compatible']);
    });
  },
  {
    configFile: {
      get providers() {
        return {
          'kie-main': { type: 'kie', baseUrl: urls.kie, apiKey: urls.kieKey, options: { pollIntervalMs: 20 } },
          'fal-main': { type: 'fal', baseUrl: urls.fal, apiKey: urls.falKey, options: { pollIntervalMs: 20 } },
          // OpenAI's own API (never contacted: its Sora route refuses before dispatch) and a compatible base.
          'openai-real': { type: 'openai', baseUrl: 'https://api.openai.com/v1', apiKey: 'sk-never-sent', options: { pollIntervalMs: 20 } },
          'openai-compatible': { type: 'openai', baseUrl: urls.openai, apiKey: urls.openaiKey, options: { pollIntervalMs: 20 } },
        };
      },
      routes: Object.fromEntries(Object.entries(FIRST).map(([id, first]) => [id, [first, ...(SECOND[id] ? [SECOND[id]] : []), { provider: 'local', model: id }]])),
    },
  },
);

describeEachMode(
  'issue 30, item 11: a model whose only route is gone is tagged no-live-route and refused with a 503 before any charge',
  (ctx) => {
    test('sora-2-official routed to api.openai.com only', async () => {
      const catalog = (await ctx.gw.api('', 'GET', '/api/v1/catalog')).body as Array<{ id: string; tags: string[] }>;
      assert.ok(catalog.find((m) => m.id === 'sora-2-official')?.tags.includes('no-live-route'));
      assert.ok(!catalog.find((m) => m.id === 'sora-2')?.tags.includes('no-live-route'), 'sora-2 keeps its (local) route');
      const one = (await ctx.gw.api('', 'GET', '/api/v1/catalog/sora-2-official')).body as { tags: string[] };
      assert.ok(one.tags.includes('no-live-route'));
      const { key, userId } = await ctx.gw.createUser(100_000);
      const res = await ctx.gw.api(key, 'POST', '/api/v1/generation/create', { model: 'sora-2-official', input: { prompt: 'p', duration: 8 } });
      assert.equal(res.status, 503, JSON.stringify(res.body));
      const ledger = await ctx.gw.admin<{ data: Array<{ kind: string }> }>('GET', `/admin/v1/users/${userId}/ledger`);
      assert.deepEqual(ledger.data.map((e) => e.kind), ['initial_credit']);
    });
  },
  {
    configFile: {
      providers: { 'openai-real': { type: 'openai', baseUrl: 'https://api.openai.com/v1', apiKey: 'sk-never-sent' } },
      routes: { 'sora-2-official': [{ provider: 'openai-real', model: 'sora-2' }] },
    },
  },
);
