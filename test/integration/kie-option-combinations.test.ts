/**
 * Issue 18, item 9 (kie): every option combination the catalog publishes, for every model routed to
 * kie in the README's example config (sora-2) and every model whose kie body is checked against a
 * recorded kie document (test/fixtures/upstreams/kie/), goes through the gateway to the strict kie
 * fake. Each one is either refused by us with a 400 naming the field before any charge, or accepted by
 * the fake and finished (1080p and 4K Veo through kie's upgrade calls). Nothing is refunded, and the
 * ledger verifies.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { verifyLedger } from '../../src/adapters/db/ledger/ledger-checks.ts';
import { type KieFake, startKieFake } from '../fakes/media/kie.fake.ts';
import type { CatalogEntry, CatalogParam } from '../support/catalog-inputs.ts';
import { describeEachMode } from '../support/gateway.ts';
import { type MediaServer, startMediaServer } from '../support/media-server.ts';
import { waitForTask } from '../support/tasks.ts';

/** kie-routed models and what each needs beyond its published options (media, required text). */
const MODELS: Readonly<Record<string, { base: Record<string, unknown>; only?: readonly string[]; fixed?: Record<string, readonly unknown[]> }>> = {
  // The README's example config routes sora-2 to kie.
  'sora-2': { base: { prompt: 'a fox' } },
  'veo-3.1-fast': { base: { prompt: 'a fox' } },
  'veo-3.1-quality': { base: { prompt: 'a fox' } },
  'veo-3.1-lite': { base: { prompt: 'a fox' } },
  'nano-banana-2': { base: { prompt: 'a fox' } },
  'z-image-turbo': { base: { prompt: 'a fox' } },
  'seedream-4.0': { base: { prompt: 'a fox' } },
  'seedream-4.5': { base: { prompt: 'a fox' } },
  // Issue 30, item 9: kie's GPT Image pages (text-to-image; the edit bodies are covered in kie-fidelity).
  'gpt-image-2': { base: { prompt: 'a fox' } },
  'gpt-image-1.5': { base: { prompt: 'a fox' } },
  // Suno: the two actions whose kie bodies are recorded, with every engine.
  suno: { base: { tags: 'piano, calm', prompt: 'la la la' }, only: ['mv'], fixed: { action: ['add-instrumental', 'add-vocals'] } },
};

let kie: KieFake;
let media: MediaServer;
let kieUrl = '';
let kieKey = '';

before(async () => {
  // The older Veo service: resolution is reached through the upgrade calls, the longest path.
  kie = await startKieFake({ veoInlineResolution: false, veoUpgradeMs: 20, callbacks: false });
  kie.defaultBehaviour = { completeAfterMs: 20 };
  kieUrl = kie.url;
  kieKey = kie.apiKey;
  media = await startMediaServer();
});
after(async () => {
  await kie?.close();
  await media?.close();
});

/** Every combination of the enum and boolean options a model publishes (media and text excluded). */
function combinations(model: CatalogEntry, only?: readonly string[], fixed: Record<string, readonly unknown[]> = {}): Array<Record<string, unknown>> {
  const dims: Array<[string, readonly unknown[]]> = Object.entries(fixed);
  for (const p of model.params as CatalogParam[]) {
    if (p.deprecated || p.isMedia || p.isPrompt || p.name in fixed) continue;
    if (only && !only.includes(p.name)) continue;
    if (p.kind === 'boolean') dims.push([p.name, [false, true]]);
    else if (p.options && p.options.length > 0) dims.push([p.name, p.options.map((o) => o.value)]);
  }
  let out: Array<Record<string, unknown>> = [{}];
  for (const [name, values] of dims) out = out.flatMap((c) => values.map((v) => ({ ...c, [name]: v })));
  return out;
}

/** Media a combination needs: veo frames or references, Suno's uploaded audio. */
function withMedia(modelId: string, input: Record<string, unknown>): Record<string, unknown> {
  if (modelId.startsWith('veo-3.1') && input.generationType !== undefined) return { ...input, urls: [media.imageUrl] };
  if (modelId === 'suno') return { ...input, audioUrl: media.audioUrl(5), negativeTags: 'metal' };
  return input;
}

describeEachMode(
  'kie: every published option combination is accepted by the strict fake or refused with a 400 before any charge',
  (ctx) => {
    test('all combinations', { timeout: 600_000 }, async (t) => {
      const { key, userId } = await ctx.gw.createUser(1_000_000);
      const catalog = (await ctx.gw.api(key, 'GET', '/api/v1/catalog')).body as CatalogEntry[];
      const created: Array<{ label: string; taskId: string }> = [];
      let refused = 0;
      for (const [modelId, spec] of Object.entries(MODELS)) {
        const model = catalog.find((m) => m.id === modelId);
        assert.ok(model, `${modelId} is in the catalog`);
        for (const combo of combinations(model, spec.only, spec.fixed)) {
          const input = withMedia(modelId, { ...spec.base, ...combo });
          const label = `${modelId} ${JSON.stringify(combo)}`;
          const before = await balance(ctx.gw, userId);
          const res = await ctx.gw.api(key, 'POST', '/api/v1/generation/create', { model: modelId, input });
          if (res.status === 400) {
            const error = (res.body as { error: { param?: string; message: string } }).error;
            assert.match(error.param ?? '', /^input\./u, `${label}: the 400 names the field (${error.message})`);
            assert.equal(await balance(ctx.gw, userId), before, `${label}: nothing charged`);
            refused += 1;
            continue;
          }
          assert.equal(res.status, 200, `${label}: ${JSON.stringify(res.body)}`);
          created.push({ label, taskId: (res.body as { data: { taskId: string } }).data.taskId });
        }
      }
      for (const { label, taskId } of created) {
        const task = await waitForTask(ctx.gw, key, taskId, 120_000);
        assert.equal(task.status, 'finished', `${label}: ${task.errorMessage}`);
      }
      t.diagnostic(`${created.length} combinations accepted by the strict fake and finished, ${refused} refused with a 400 before any charge`);
      // Issue 30, item 12: each 4K upgrade (a paid kie job) was POSTed once, then followed by its record.
      const upgraded = [...kie.jobs.values()].filter((j) => j.meta.fourKPosts !== undefined);
      assert.ok(upgraded.length > 0);
      assert.deepEqual(upgraded.filter((j) => j.meta.fourKPosts !== 1).map((j) => [j.id, j.meta.fourKPosts]), []);
      assert.ok(created.length > 0 && refused > 0);
      const ledger = await ctx.gw.admin<{ data: Array<{ kind: string }> }>('GET', `/admin/v1/users/${userId}/ledger?limit=1000`);
      assert.equal(ledger.data.filter((e) => e.kind === 'generation_refund').length, 0, 'no refund: nothing failed after a charge');
      assert.deepEqual(await verifyLedger(ctx.gw.gateway.services.database.db), []);
    });
  },
  {
    configFile: {
      get providers() {
        return { 'kie-main': { type: 'kie', baseUrl: kieUrl, apiKey: kieKey, timeoutMs: 5_000, options: { pollIntervalMs: 20, retryPollMs: 20 } } };
      },
      routes: Object.fromEntries(Object.keys(MODELS).map((id) => [id, [{ provider: 'kie-main', model: id }]])),
    },
  },
);

async function balance(gw: { admin<T>(method: string, path: string): Promise<T> }, userId: string): Promise<string> {
  return (await gw.admin<{ balanceMicroUsd: string }>('GET', `/admin/v1/users/${userId}/ledger`)).balanceMicroUsd;
}
