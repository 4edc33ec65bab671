import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { describeEachMode } from '../support/gateway.ts';
import { type CatalogEntry, sendFromForm } from '../support/catalog-inputs.ts';
import { type MediaServer, startMediaServer } from '../support/media-server.ts';

let media: MediaServer;
before(async () => {
  media = await startMediaServer();
});
after(async () => {
  await media.close();
});

type CatalogModel = CatalogEntry & { pricing: Array<{ key: string; price: string; isDefault: boolean }>; priceFrom?: string; priceUnit: string; protocols?: string[] };

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
      const res = await sendFromForm(model, media, (input) => ctx.gw.api(key, 'POST', '/api/v1/generation/estimate', { model: model.id, input }));
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
