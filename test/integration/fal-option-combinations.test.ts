/**
 * Issue 18, item 9 (fal): every option combination the catalog publishes, for every model the README's
 * example config routes to fal (nano-banana-2 as fal-ai/nano-banana-2; sora-2 was kie's reserve there
 * until this test showed fal cannot serve any of its durations) and
 * every model whose fal body is checked against a recorded schema (test/fixtures/upstreams/fal/), goes
 * through the gateway to the strict fal fake, with and without reference images where the model takes
 * them. Each one is accepted by the fake and finishes, or is refused by us with a 400 naming the field
 * before any charge. Nothing is refunded and the ledger verifies. sora-2 is routed to fal alone here,
 * so that fal's half is what is shown: fal's Sora 2 takes 4 to 20 s in steps of 4, none of our clips.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type FalFake, startFalFake } from '../fakes/media/fal.fake.ts';
import { describeEachMode } from '../support/gateway.ts';
import { type MediaServer, startMediaServer } from '../support/media-server.ts';
import { type ComboModel, runCombinations } from '../support/option-combinations.ts';

let fal: FalFake;
let media: MediaServer;
let falUrl = '';
let falKey = '';

before(async () => {
  fal = await startFalFake({ callbacks: false });
  fal.defaultBehaviour = { completeAfterMs: 20 };
  falUrl = fal.url;
  falKey = fal.apiKey;
  media = await startMediaServer();
});
after(async () => {
  await fal?.close();
  await media?.close();
});

const ROUTES: Readonly<Record<string, string>> = {
  'sora-2': 'fal-ai/sora-2',
  'nano-banana-2': 'fal-ai/nano-banana-2',
  'nano-banana-pro': 'fal-ai/nano-banana-pro',
  'z-image-turbo': 'fal-ai/z-image/turbo',
  // Issue 30, item 10: Veo 3.1 under the app (Quality), under Fast (modes appended) and Lite.
  'veo-3.1-quality': 'fal-ai/veo3.1',
  'veo-3.1-fast': 'fal-ai/veo3.1/fast',
  'veo-3.1-lite': 'fal-ai/veo3.1/lite',
};

describeEachMode(
  'fal: every published option combination is accepted by the strict fake or refused with a 400 before any charge',
  (ctx) => {
    test('all combinations', { timeout: 600_000 }, async (t) => {
      const withImages: ComboModel = { base: { prompt: 'a fox' }, fixed: { urls: [undefined, [media.imageUrl]] } };
      const veoFrames: ComboModel = { base: { prompt: 'a fox' }, fixed: { urls: [undefined, [media.imageUrl], [media.imageUrl, media.imageUrl]], generationType: [undefined, 'frame', 'reference'] } };
      const tally = await runCombinations(ctx.gw, {
        'sora-2': withImages,
        'nano-banana-2': withImages,
        'nano-banana-pro': withImages,
        'z-image-turbo': { base: { prompt: 'a fox' } },
        'veo-3.1-quality': veoFrames,
        'veo-3.1-fast': veoFrames,
        'veo-3.1-lite': { base: { prompt: 'a fox' } },
      });
      t.diagnostic(`${tally.accepted} accepted by the strict fake and finished, ${tally.refused} refused with a 400 before any charge ${JSON.stringify(tally.refusedBy)}`);
      // nano-banana-2: all 14 sizes x 4 tiers; nano-banana-pro: 10 sizes x 4 tiers; each with and without references; z-image: 5 of 7 sizes.
      // Veo (2 ratios x 3 tiers each): Quality takes text, 1 or 2 frames and references (7 of 9 url/type
      // pairs; generationType without urls is a 400 of the catalog); Fast the same but no references
      // (5); Lite text only, without 4k (2 of 3 tiers).
      assert.equal(tally.accepted, 14 * 4 * 2 + 10 * 4 * 2 + 5 + 6 * 7 + 6 * 5 + 2 * 2);
      assert.deepEqual(tally.refusedBy, { 'input.duration': 12, 'input.size': 4 * 4 * 2 + 2, 'input.generationType': 6 * 2 + 6 * 4, 'input.resolution': 2 });
    });
  },
  {
    configFile: {
      get providers() {
        return { 'fal-main': { type: 'fal', baseUrl: falUrl, apiKey: falKey, timeoutMs: 5_000, options: { pollIntervalMs: 20, retryPollMs: 20 } } };
      },
      routes: Object.fromEntries(Object.entries(ROUTES).map(([id, model]) => [id, [{ provider: 'fal-main', model }]])),
    },
  },
);
