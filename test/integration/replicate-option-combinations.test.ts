/**
 * Issue 18, item 9 (Replicate): every option combination the catalog publishes for the models whose
 * Replicate inputs are checked against a recorded `openapi_schema` (test/fixtures/upstreams/replicate/)
 * goes through the gateway to the strict Replicate fake, with and without reference images. Each one is
 * accepted by the fake and finishes, or is refused by us with a 400 naming the field before any charge.
 * Nothing is refunded and the ledger verifies. (The README's example config routes nothing to
 * Replicate; openai/gpt-image-1 is reached here through gpt-image-2-official's route.)
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type ReplicateFake, startReplicateFake } from '../fakes/media/replicate.fake.ts';
import { describeEachMode } from '../support/gateway.ts';
import { type MediaServer, startMediaServer } from '../support/media-server.ts';
import { type ComboModel, runCombinations } from '../support/option-combinations.ts';

let replicate: ReplicateFake;
let media: MediaServer;
let replicateUrl = '';
let replicateToken = '';

before(async () => {
  replicate = await startReplicateFake({ callbacks: false });
  replicate.defaultBehaviour = { completeAfterMs: 20 };
  replicateUrl = `${replicate.url}/v1`;
  replicateToken = replicate.apiToken;
  media = await startMediaServer();
});
after(async () => {
  await replicate?.close();
  await media?.close();
});

const ROUTES: Readonly<Record<string, string>> = {
  'gpt-image-1.5': 'openai/gpt-image-1.5',
  'gpt-image-2': 'openai/gpt-image-2',
  'gpt-image-2-official': 'openai/gpt-image-1',
};

describeEachMode(
  'Replicate: every published option combination is accepted by the strict fake or refused with a 400 before any charge',
  (ctx) => {
    test('all combinations', { timeout: 600_000 }, async (t) => {
      const spec: ComboModel = { base: { prompt: 'a fox' }, fixed: { urls: [undefined, [media.imageUrl]] } };
      const tally = await runCombinations(ctx.gw, Object.fromEntries(Object.keys(ROUTES).map((id) => [id, spec])));
      t.diagnostic(`${tally.accepted} accepted by the strict fake and finished, ${tally.refused} refused with a 400 before any charge ${JSON.stringify(tally.refusedBy)}`);
      // Per model: 1:1, 3:2, 2:3 and auto at 1k, with and without references.
      assert.equal(tally.accepted, 3 * 4 * 2);
      assert.deepEqual(Object.keys(tally.refusedBy).sort(), ['input.resolution', 'input.size']);
    });
  },
  {
    configFile: {
      get providers() {
        return {
          replicate: { type: 'replicate', baseUrl: replicateUrl, apiKey: replicateToken, timeoutMs: 5_000, options: { pollIntervalMs: 20, retryPollMs: 20, openaiApiKey: 'sk-operator' } },
        };
      },
      routes: Object.fromEntries(Object.entries(ROUTES).map(([id, model]) => [id, [{ provider: 'replicate', model }]])),
    },
  },
);
