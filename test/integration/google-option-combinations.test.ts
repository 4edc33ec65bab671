/**
 * Issue 18, items 9 and 11 (Google): every option combination the catalog publishes for the models a
 * Google route serves (Nano Banana 2 and Pro, Veo 3.1 Fast, Quality and Lite) goes through the gateway
 * to the strict Gemini API fake, with Google as the only route. Each one is either refused by us with
 * a 400 naming the field before any charge, or accepted by the fake (Google's documents) and finished.
 * Nothing is refunded, and the ledger verifies.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { verifyLedger } from '../../src/adapters/db/ledger/ledger-checks.ts';
import { type GoogleFake, startGoogleFake } from '../fakes/media/google.fake.ts';
import type { CatalogEntry, CatalogParam } from '../support/catalog-inputs.ts';
import { describeEachMode } from '../support/gateway.ts';
import { type MediaServer, startMediaServer } from '../support/media-server.ts';
import { waitForTask } from '../support/tasks.ts';

const MODELS = ['nano-banana-2', 'nano-banana-pro', 'veo-3.1-fast', 'veo-3.1-quality', 'veo-3.1-lite'] as const;

let google: GoogleFake;
let media: MediaServer;
let googleUrl = '';
let googleKey = '';

before(async () => {
  google = await startGoogleFake();
  google.defaultBehaviour = { completeAfterMs: 5 };
  googleUrl = google.url;
  googleKey = google.apiKey;
  media = await startMediaServer();
});
after(async () => {
  await google?.close();
  await media?.close();
});

/** Every combination of the enum and boolean options a model publishes (media and text excluded). */
function combinations(model: CatalogEntry): Array<Record<string, unknown>> {
  const dims: Array<[string, readonly unknown[]]> = [];
  for (const p of model.params as CatalogParam[]) {
    if (p.deprecated || p.isMedia || p.isPrompt) continue;
    if (p.kind === 'boolean') dims.push([p.name, [false, true]]);
    else if (p.options && p.options.length > 0) dims.push([p.name, p.options.map((o) => o.value)]);
  }
  let out: Array<Record<string, unknown>> = [{}];
  for (const [name, values] of dims) out = out.flatMap((c) => values.map((v) => ({ ...c, [name]: v })));
  return out;
}

/** Veo frames and references need images. */
function withMedia(input: Record<string, unknown>): Record<string, unknown> {
  return input.generationType === undefined ? input : { ...input, urls: [media.imageUrl] };
}

async function balance(gw: { admin<T>(method: string, path: string): Promise<T> }, userId: string): Promise<string> {
  return (await gw.admin<{ balanceMicroUsd: string }>('GET', `/admin/v1/users/${userId}/ledger`)).balanceMicroUsd;
}

describeEachMode(
  'Google: every published option combination is accepted by the strict fake or refused with a 400 before any charge',
  (ctx) => {
    test('all combinations', { timeout: 600_000 }, async (t) => {
      const { key, userId } = await ctx.gw.createUser(1_000_000);
      const catalog = (await ctx.gw.api(key, 'GET', '/api/v1/catalog')).body as CatalogEntry[];
      const calls = () => google.callsTo('generateContent').length + google.callsTo('predictLongRunning').length;
      const callsBefore = calls();
      const created: Array<{ label: string; taskId: string }> = [];
      const refused: string[] = [];
      for (const modelId of MODELS) {
        const model = catalog.find((m) => m.id === modelId);
        assert.ok(model, `${modelId} is in the catalog`);
        for (const combo of combinations(model)) {
          const input = withMedia({ prompt: 'a fox', ...combo });
          const label = `${modelId} ${JSON.stringify(combo)}`;
          const before = await balance(ctx.gw, userId);
          const res = await ctx.gw.api(key, 'POST', '/api/v1/generation/create', { model: modelId, input });
          if (res.status === 400) {
            const error = (res.body as { error: { param?: string; message: string } }).error;
            assert.match(error.param ?? '', /^input\./u, `${label}: the 400 names the field (${error.message})`);
            assert.equal(await balance(ctx.gw, userId), before, `${label}: nothing charged`);
            refused.push(label);
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
      t.diagnostic(`${created.length} combinations accepted by the strict fake and finished, ${refused.length} refused with a 400 before any charge`);
      // What Google does not document: 512 and the four tall/wide ratios on Pro, 4k on Lite.
      assert.equal(refused.filter((l) => l.startsWith('nano-banana-pro')).length, 4 * 4 + 10);
      assert.equal(refused.filter((l) => l.startsWith('veo-3.1-lite')).length, 2);
      assert.equal(refused.length, 28);
      assert.equal(calls() - callsBefore, created.length, 'each accepted combination reached Google once, each refused one never');
      const ledger = await ctx.gw.admin<{ data: Array<{ kind: string }> }>('GET', `/admin/v1/users/${userId}/ledger?limit=1000`);
      assert.equal(ledger.data.filter((e) => e.kind === 'generation_refund').length, 0, 'no refund: nothing failed after a charge');
      assert.equal(ledger.data.filter((e) => e.kind === 'generation_debit').length, created.length);
      assert.deepEqual(await verifyLedger(ctx.gw.gateway.services.database.db), []);
    });
  },
  {
    configFile: {
      get providers() {
        return { 'google-main': { type: 'google', baseUrl: googleUrl, apiKey: googleKey, timeoutMs: 5_000, options: { pollIntervalMs: 20, retryPollMs: 20 } } };
      },
      routes: Object.fromEntries(MODELS.map((id) => [id, [{ provider: 'google-main', model: id }]])),
    },
  },
);
