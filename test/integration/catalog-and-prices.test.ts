import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { describeEachMode } from '../support/gateway.ts';
import { type MediaServer, startMediaServer } from '../support/media-server.ts';

let media: MediaServer;
before(async () => {
  media = await startMediaServer();
});
after(async () => {
  await media.close();
});

interface CatalogModel {
  id: string;
  kind: 'media' | 'llm';
  type: string;
  pricing: Array<{ key: string; price: string; isDefault: boolean }>;
  priceFrom?: string;
  priceUnit: string;
  params: Array<{ name: string; required: boolean; deprecated: boolean; isMedia: boolean; default?: unknown; options?: Array<{ value: unknown }>; isPrompt: boolean; kind: string; isArray: boolean; minimum?: number }>;
  protocols?: string[];
}

/** What a form built from `params` sends untouched: the prompt, each field's default, and required fields. */
function inputFromParams(model: CatalogModel): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const p of model.params) {
    if (p.deprecated) continue;
    // A prompt is what a form user always types, even where media could stand in for it.
    if (p.isPrompt && p.name === 'prompt') input[p.name] = 'a red fox in the snow';
    else if (p.default !== undefined && p.default !== null) input[p.name] = p.default;
    else if (p.required && p.isMedia) {
      const url = /video/i.test(p.name) ? media.videoUrl(5) : /audio/i.test(p.name) ? media.audioUrl(5) : media.imageUrl;
      input[p.name] = p.isArray ? [url] : url;
    } else if (p.required) {
      if (p.isPrompt || p.kind === 'string') input[p.name] = p.options?.[0]?.value ?? 'a red fox in the snow';
      else if (p.kind === 'number') input[p.name] = p.options?.[0]?.value ?? p.minimum ?? 1;
      else if (p.kind === 'boolean') input[p.name] = false;
    }
  }
  return input;
}

describeEachMode('catalog, prices and estimates', (ctx) => {
  test('the catalog lists 34 media models and the text models, each with prices and params', async () => {
    const res = await ctx.gw.api(undefined, 'GET', '/api/v1/catalog');
    assert.equal(res.status, 200);
    const models = res.body as CatalogModel[];
    const media = models.filter((m) => m.kind === 'media');
    const text = models.filter((m) => m.kind === 'llm');
    assert.equal(media.length, 34);
    assert.ok(text.length >= 12);
    for (const m of media) {
      assert.ok(m.pricing.length > 0, `${m.id} has prices`);
      assert.equal(m.pricing.filter((p) => p.isDefault).length, 1, `${m.id} has one default tier`);
      assert.equal(m.priceFrom, m.pricing.find((p) => p.isDefault)?.price);
      assert.ok(['generation', 'second'].includes(m.priceUnit));
      assert.ok(m.params.length > 0);
    }
    for (const m of text) {
      assert.equal(m.priceUnit, 'megatoken');
      assert.ok(m.protocols?.includes('openai'));
    }
    assert.ok(text.some((m) => m.protocols?.includes('anthropic')));
  });

  test('one model by id, and 404 for an unknown id', async () => {
    const one = await ctx.gw.api(undefined, 'GET', '/api/v1/catalog/sora-2');
    assert.equal(one.status, 200);
    assert.equal((one.body as CatalogModel).id, 'sora-2');
    const none = await ctx.gw.api(undefined, 'GET', '/api/v1/catalog/no-such-model');
    assert.equal(none.status, 404);
    assert.equal((none.body as { error: { type: string } }).error.type, 'NotFound');
  });

  test('for every media model, a request built from its params defaults validates and estimates', async () => {
    const { key } = await ctx.gw.createUser(100);
    const models = ((await ctx.gw.api(undefined, 'GET', '/api/v1/catalog')).body as CatalogModel[]).filter((m) => m.kind === 'media');
    for (const model of models) {
      const input = inputFromParams(model);
      let res = await ctx.gw.api(key, 'POST', '/api/v1/generation/estimate', { model: model.id, input });
      // Some media are required only as "one of" (V13: imageUrls or parentTaskId): fill what the refusal names, as a form user would.
      for (let round = 0; round < 2 && res.status === 400; round++) {
        const param = ((res.body as { error: { param?: string } }).error.param ?? '').replace(/^input\./, '');
        const field = model.params.find((p) => p.name === param);
        if (field?.isMedia) input[field.name] = field.isArray ? [media.imageUrl] : media.imageUrl;
        else if (field?.isPrompt && param in input) {
          // The prompt box that does not apply in this mode (Suno simple mode takes gptDescriptionPrompt).
          delete input[param];
          for (const other of model.params.filter((p) => p.isPrompt && p.name !== param)) input[other.name] = 'a song about the sea';
        } else break;
        res = await ctx.gw.api(key, 'POST', '/api/v1/generation/estimate', { model: model.id, input });
      }
      assert.equal(res.status, 200, `${model.id}: ${JSON.stringify(res.body)}`);
      const cost = (res.body as { cost: number }).cost;
      assert.ok(Number.isSafeInteger(cost) && cost > 0, `${model.id} cost ${cost}`);
    }
  });

  test('an estimate is exact micro-USD: per second × seconds, tiers by resolution', async () => {
    const { key } = await ctx.gw.createUser(100);
    const estimate = async (model: string, input: Record<string, unknown>) =>
      ((await ctx.gw.api(key, 'POST', '/api/v1/generation/estimate', { model, input })).body as { cost: number }).cost;
    assert.equal(await estimate('nano-banana-2', { prompt: 'p' }), 67_000);
    assert.equal(await estimate('nano-banana-2', { prompt: 'p', resolution: '4K' }), 151_000);
    // grok-imagine-video: 0.05 $/s at 480p, 0.07 at 720p.
    assert.equal(await estimate('grok-imagine-video', { prompt: 'p', duration: 10 }), 500_000);
    assert.equal(await estimate('grok-imagine-video', { prompt: 'p', duration: 10, resolution: '720p' }), 700_000);
    // seedance-2.0: 0.0825 $/s at 480p for the default 5 s.
    assert.equal(await estimate('seedance-2.0', { prompt: 'p' }), 412_500);
  });

  test('invalid input is a 400 invalid_input naming the field; unknown models too', async () => {
    const { key } = await ctx.gw.createUser(100);
    const cases: Array<[unknown, RegExp]> = [
      [{ model: 'nano-banana-2', input: { prompt: 'p', size: '7:5' } }, /size/],
      [{ model: 'nano-banana-2', input: { prompt: 'p', colour: 'red' } }, /colour/],
      [{ model: 'nano-banana-2', input: {} }, /prompt/],
      [{ model: 'no-such-model', input: { prompt: 'p' } }, /model/],
      [{ model: 'nano-banana-2' }, /input/],
      [{ model: 'nano-banana-2', input: { prompt: 'p' }, extra: 1 }, /extra/],
      [{ model: 'nano-banana-2', input: { prompt: 'p' }, webhook: 'ftp://x' }, /webhook/],
    ];
    for (const [body, field] of cases) {
      const res = await ctx.gw.api(key, 'POST', '/api/v1/generation/estimate', body);
      assert.equal(res.status, 400, JSON.stringify(body));
      const error = (res.body as { code: number; error: { code: string; message: string } }).error;
      assert.equal(error.code, 'invalid_input');
      assert.match(error.message, field);
    }
  });

  test('the estimate needs a key; the catalog and price tables do not', async () => {
    assert.equal((await ctx.gw.api(undefined, 'POST', '/api/v1/generation/estimate', { model: 'sora-2', input: { prompt: 'p' } })).status, 401);
    const cost = await ctx.gw.api(undefined, 'GET', '/api/v1/cost');
    assert.equal(cost.status, 200);
    const body = cost.body as { currency: string; models: Array<{ model: string; tiers: Array<{ price: string; priceMicroUsd: string }> }> };
    assert.equal(body.currency, 'USD');
    const sora = body.models.find((m) => m.model === 'sora-2');
    assert.ok(sora);
    for (const tier of sora.tiers) assert.equal(Math.round(Number(tier.price) * 1e6), Number(tier.priceMicroUsd));
    assert.equal((await ctx.gw.api(undefined, 'GET', '/api/v1/cost/gpt-5.5')).status, 200);
    assert.equal((await ctx.gw.api(undefined, 'GET', '/api/v1/cost/nope')).status, 404);
  });

  test('GET /models lists chat models with token prices and needs a key', async () => {
    const { key } = await ctx.gw.createUser(1);
    assert.equal((await ctx.gw.api(undefined, 'GET', '/api/v1/models')).status, 401);
    const res = await ctx.gw.api(key, 'GET', '/api/v1/models');
    assert.equal(res.status, 200);
    const list = res.body as { object: string; data: Array<{ id: string; object: string; pricing: { input: string; output: string } }> };
    assert.equal(list.object, 'list');
    const claude = list.data.find((m) => m.id === 'claude-sonnet-4-6');
    assert.equal(claude?.pricing.input, '3');
    assert.equal(claude?.pricing.output, '15');
  });
});
