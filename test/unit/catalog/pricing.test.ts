import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ConfigError } from '../../../src/domain/config-error.ts';
import type { AddedChatModel, AddedMediaModel, ModelOverride } from '../../../src/domain/catalog/catalog-overrides.ts';
import { Catalog } from '../../../src/domain/catalog/catalog.ts';
import { catalog, cost, VID, valid, video } from './catalog-helpers.ts';

const P = 'a quiet harbour';

function build(models: Record<string, ModelOverride> = {}, addedChatModels: AddedChatModel[] = [], addedMediaModels: AddedMediaModel[] = []): Catalog {
  return Catalog.build({ models, addedChatModels, addedMediaModels });
}

function configError(fn: () => unknown, field: string, pattern?: RegExp): void {
  assert.throws(fn, (error: unknown) => {
    assert.ok(error instanceof ConfigError, `expected ConfigError, got ${String(error)}`);
    assert.equal(error.field, field);
    assert.ok(error.message.includes(field));
    if (pattern) assert.match(error.message, pattern);
    return true;
  });
}

const SORA_TIERS = [
  { key: '10s', price: '0.2' },
  { key: '15s', price: '0.3' },
  { key: '25s', price: '0.5' },
];

const chatModel = (over: Partial<AddedChatModel> = {}): AddedChatModel => ({
  id: 'llama-4-local',
  name: 'Llama 4 (local)',
  vendor: 'Meta',
  inputPrice: '0.1',
  outputPrice: '0.2',
  cachedInputPrice: undefined,
  protocols: ['openai'],
  contextWindow: 128_000,
  maxOutputTokens: 8192,
  ...over,
});

describe('price arithmetic', () => {
  test('integer micro-USD, no floating drift', () => {
    assert.equal(cost('seedance-2.0', { prompt: P, duration: 13 }), 1_072_500);
    assert.equal(cost('sora-2-official', { prompt: P, duration: 12 }), 1_200_000);
    assert.equal(cost('seedance-1.5-pro', { prompt: P, resolution: '1080p', duration: 15, generateAudio: false }), 877_500);
    const q = catalog.price('seedance-2.0', valid('seedance-2.0', { prompt: P, videoUrls: [VID] }), [video(VID, 0.1 + 0.2)]);
    assert.equal(q.units, 6);
    assert.ok(Number.isSafeInteger(q.costMicro));
  });

  test('measured seconds are summed in milliseconds and rounded up once, codec padding aside', () => {
    const input = valid('seedance-2.0', { prompt: P, videoUrls: [VID, 'https://media.example.com/c.mp4'] });
    const q = catalog.price('seedance-2.0', input, [video(VID, 1.4), video('https://media.example.com/c.mp4', 1.6)]);
    assert.equal(q.units, 5 + 3);
    const r = catalog.price('seedance-2.0', input, [video(VID, 1.4), video('https://media.example.com/c.mp4', 1.8)]);
    assert.equal(r.units, 5 + 4);
    // An AAC track runs a few tens of milliseconds past the picture: 3.05 s is billed as 3 s.
    const padded = catalog.price('seedance-2.0', input, [video(VID, 1.5), video('https://media.example.com/c.mp4', 1.55)]);
    assert.equal(padded.units, 5 + 3);
  });

  test('published tiers: keys, decimal prices, dimensions for matrices only', () => {
    assert.deepEqual(catalog.get('sora-2')?.pricing, [
      { key: '10s', price: '0.15', isDefault: true },
      { key: '15s', price: '0.25', isDefault: false },
      { key: '25s', price: '0.4', isDefault: false },
    ]);
    assert.deepEqual(catalog.get('z-image-turbo')?.pricing, [{ key: 'default', price: '0.01', isDefault: true }]);
    assert.deepEqual(
      catalog.get('seedance-2.0')?.pricing.map((t) => t.key),
      ['480p:standard', '480p:refInput', '720p:standard', '720p:refInput', '1080p:standard', '1080p:refInput', '4k:standard', '4k:refInput'],
    );
    assert.deepEqual(catalog.get('seedance-2.0')?.pricing[1]?.dimensions, { resolution: '480p', input: 'refInput' });
    assert.equal(catalog.get('seedance-2.0-mini')?.pricing.find((t) => t.isDefault)?.key, '720p:standard');
    assert.equal(catalog.get('wan-2.7')?.priceUnit, 'second');
    assert.equal(catalog.get('midjourney-video')?.priceUnit, 'generation');
  });
});

describe('operator overrides', () => {
  test('pricing replaces every tier', () => {
    const c = build({ 'sora-2': { pricing: SORA_TIERS } });
    assert.equal(c.price('sora-2', c.validate('sora-2', { prompt: P, duration: 25 })).costMicro, 500_000);
    assert.equal(c.get('sora-2')?.priceFrom, '0.2');
    assert.equal(c.get('sora-2')?.pricing[0]?.isDefault, true);
    assert.equal(catalog.get('sora-2')?.priceFrom, '0.15');
  });

  test('matrix tiers can be named by dimensions', () => {
    const tiers = ['480p', '720p', '1080p', '4k'].flatMap((resolution, i) => [
      { key: 'a', price: `${i + 1}`, dimensions: { resolution, input: 'standard' } },
      { key: 'b', price: `0.${i + 1}`, dimensions: { resolution, input: 'refInput' } },
    ]);
    const c = build({ 'seedance-2.0': { pricing: tiers } });
    assert.equal(c.price('seedance-2.0', c.validate('seedance-2.0', { prompt: P, resolution: '720p' })).costMicro, 10_000_000);
    const ref = c.price('seedance-2.0', c.validate('seedance-2.0', { prompt: P, resolution: '4k', videoUrls: [VID] }), [video(VID, 5)]);
    assert.equal(ref.costMicro, 4_000_000);
  });

  test('a pricing override that does not cover the tariff is a ConfigError naming the field', () => {
    configError(() => build({ 'sora-2': { pricing: SORA_TIERS.slice(0, 2) } }), 'models.sora-2.pricing', /no price for tier 25s/);
    configError(() => build({ 'sora-2': { pricing: [...SORA_TIERS, { key: '30s', price: '1' }] } }), 'models.sora-2.pricing[3]', /not a price tier/);
    configError(() => build({ 'sora-2': { pricing: [SORA_TIERS[0]!, SORA_TIERS[0]!, SORA_TIERS[2]!] } }), 'models.sora-2.pricing[1]', /priced twice/);
    configError(() => build({ 'sora-2': { pricing: [{ key: '10s', price: '0.2' }, { key: '15s', price: '0.3', isDefault: true }, SORA_TIERS[2]!] } }), 'models.sora-2.pricing[1]', /isDefault belongs on tier 10s/);
    configError(() => build({ 'seedance-2.0': { pricing: [{ key: 'default', price: '0.1' }] } }), 'models.seedance-2.0.pricing[0]', /480p:standard/);
    configError(() => build({ 'sora-2': { pricing: [{ key: '10s', price: 'ten' }, ...SORA_TIERS.slice(1)] } }), 'models.sora-2.pricing[0].price');
  });

  test('unknown ids and fields of the wrong kind are ConfigErrors', () => {
    configError(() => build({ 'sora-3': { hidden: true } }), 'models.sora-3', /not a model/);
    configError(() => build({ 'gpt-5.5': { pricing: SORA_TIERS } }), 'models.gpt-5.5.pricing', /media models only/);
    configError(() => build({ 'sora-2': { inputPrice: '1' } }), 'models.sora-2.inputPrice', /text models only/);
    configError(() => build({ 'gpt-5.5': { inputPrice: 'x' } }), 'models.gpt-5.5.inputPrice');
  });

  test('rename, describe and hide', () => {
    const c = build({ 'sora-2': { name: 'Sora', description: 'ours' }, 'veo-3.1-lite': { hidden: true }, 'grok-4.3': { hidden: true } });
    assert.equal(c.get('sora-2')?.name, 'Sora');
    assert.equal(c.get('sora-2')?.description, 'ours');
    assert.equal(c.media('sora-2')?.name, 'Sora');
    assert.equal(c.get('veo-3.1-lite'), undefined);
    assert.equal(c.chat('grok-4.3'), undefined);
    assert.equal(c.list().length, 44);
    assert.ok(!c.mediaModels().some((m) => m.id === 'veo-3.1-lite'));
    assert.ok(!c.chatModels().some((m) => m.id === 'grok-4.3'));
  });

  test('text model prices', () => {
    const c = build({ 'gpt-5.5': { inputPrice: '4', outputPrice: '20', cachedInputPrice: '0.4' }, 'grok-4.3': { inputPrice: '1' } });
    const gpt = c.chat('gpt-5.5');
    assert.equal(gpt?.inputMicroPerMillion, 4_000_000);
    assert.equal(gpt?.outputMicroPerMillion, 20_000_000);
    assert.equal(gpt?.cachedInputMicroPerMillion, 400_000);
    assert.equal(c.get('gpt-5.5')?.priceFrom, '4');
    assert.deepEqual(c.get('gpt-5.5')?.pricing, [
      { key: 'input', price: '4', isDefault: true },
      { key: 'output', price: '20', isDefault: false },
      { key: 'cached_input', price: '0.4', isDefault: false },
      // OpenAI charges no cache-write surcharge; priority processing at OpenAI's own prices.
      { key: 'cache_write', price: '4', isDefault: false },
      { key: 'cache_write_1h', price: '4', isDefault: false },
      { key: 'priority_input', price: '12.5', isDefault: false },
      { key: 'priority_output', price: '75', isDefault: false },
      { key: 'priority_cached_input', price: '1.25', isDefault: false },
      // Above 272K prompt tokens, OpenAI's long-context prices (the vendor's, not following the override).
      { key: 'long_context_input', price: '10', isDefault: false, dimensions: { promptTokensAbove: '272000' } },
      { key: 'long_context_output', price: '45', isDefault: false, dimensions: { promptTokensAbove: '272000' } },
      { key: 'long_context_cached_input', price: '1', isDefault: false, dimensions: { promptTokensAbove: '272000' } },
    ]);
    assert.equal(c.chat('grok-4.3')?.cachedInputMicroPerMillion, 312_500);
  });

  test('Claude: cache writes follow the input price (1.25× and 2×), web searches per million searches', () => {
    const c = build({ 'claude-haiku-4-5': { inputPrice: '1.10' } });
    const sonnet = c.get('claude-sonnet-4-6')?.pricing;
    assert.deepEqual(sonnet?.filter((t) => ['cache_write', 'cache_write_1h', 'web_search'].includes(t.key)), [
      { key: 'cache_write', price: '3.75', isDefault: false },
      { key: 'cache_write_1h', price: '6', isDefault: false },
      { key: 'web_search', price: '10000', isDefault: false },
    ]);
    assert.equal(c.chat('claude-sonnet-4-6')?.webSearchMicroPerCall, 10_000);
    const haiku = c.chat('claude-haiku-4-5');
    assert.equal(haiku?.cacheWriteMicroPerMillion, 1_375_000);
    assert.equal(haiku?.cacheWrite1hMicroPerMillion, 2_200_000);
    assert.equal(c.chat('deepseek-v4-flash')?.priority, undefined);
  });
});

describe('added models', () => {
  test('an added text model follows the built-in ones; cached input defaults to the input price', () => {
    const c = build({}, [chatModel()]);
    const ids = c.list().map((m) => m.id);
    assert.equal(ids.at(-1), 'llama-4-local');
    const m = c.chat('llama-4-local');
    assert.equal(m?.inputMicroPerMillion, 100_000);
    assert.equal(m?.cachedInputMicroPerMillion, 100_000);
    assert.equal(c.get('llama-4-local')?.vendor, 'Meta');
    configError(() => build({}, [chatModel({ id: 'gpt-5.5' })]), 'chatModels[0].id', /already a model id/);
    configError(() => build({}, [chatModel({ protocols: [] })]), 'chatModels[0].protocols');
    const hidden = build({ 'llama-4-local': { hidden: true } }, [chatModel()]);
    assert.equal(hidden.chat('llama-4-local'), undefined);
  });

  test('cache-write and web-search prices of added models and overrides (issue 30, item 5)', () => {
    const c = build(
      { 'claude-haiku-4-5': { inputPrice: '2', cacheWrite1hPrice: '3.5' }, 'gpt-5.5': { webSearchPrice: '25' } },
      [chatModel(), chatModel({ id: 'opus-5', cacheWritePrice: '6.25', cacheWrite1hPrice: '10', webSearchPrice: '10' }), chatModel({ id: 'five', cacheWritePrice: '0.125' })],
    );
    const plain = c.chat('llama-4-local');
    assert.deepEqual(plain?.cacheWriteLifetimes, [], 'without prices: cache marks refused');
    assert.equal(plain?.cacheWriteMicroPerMillion, 100_000, 'a write reported without a mark costs an input token');
    assert.equal(plain?.webSearchMicroPerCall, undefined);
    const opus = c.chat('opus-5');
    assert.deepEqual([opus?.cacheWriteMicroPerMillion, opus?.cacheWrite1hMicroPerMillion, opus?.webSearchMicroPerCall, opus?.cacheWriteLifetimes], [6_250_000, 10_000_000, 10_000, ['5m', '1h']]);
    assert.deepEqual(c.chat('five')?.cacheWriteLifetimes, ['5m']);
    const haiku = c.chat('claude-haiku-4-5');
    assert.deepEqual([haiku?.cacheWriteMicroPerMillion, haiku?.cacheWrite1hMicroPerMillion, haiku?.cacheWriteLifetimes], [2_500_000, 3_500_000, undefined], 'the 5 min write follows the new input price; the 1 h one is as configured');
    assert.equal(c.chat('gpt-5.5')?.webSearchMicroPerCall, 25_000);
    assert.ok(c.get('opus-5')?.pricing.some((t) => t.key === 'web_search' && t.price === '10000'));
    configError(() => build({}, [chatModel({ webSearchPrice: '0.0005' })]), 'chatModels[0].webSearchPrice', /whole micro-USD per search/);
    configError(() => build({ 'sora-2': { cacheWritePrice: '1' } }), 'models.sora-2.cacheWritePrice', /text models only/);
  });

  test('an added media model copies the family and params of basedOn, under its own id and prices', () => {
    const c = build({}, [], [{ id: 'sora-2-eu', name: 'Sora 2 (EU)', basedOn: 'sora-2', vendor: undefined, pricing: SORA_TIERS }]);
    const m = c.get('sora-2-eu');
    assert.equal(m?.name, 'Sora 2 (EU)');
    assert.equal(m?.vendor, 'OpenAI');
    assert.equal(m?.group, 'sora-2');
    assert.deepEqual(m?.params, c.get('sora-2')?.params);
    assert.deepEqual(m?.capabilities, c.get('sora-2')?.capabilities);
    assert.equal(c.media('sora-2-eu')?.family, 'V1');
    assert.equal(c.price('sora-2-eu', c.validate('sora-2-eu', { prompt: P })).costMicro, 200_000);
    assert.throws(() => c.validate('sora-2-eu', { prompt: P, duration: 12 }));
    assert.deepEqual(c.list().map((x) => x.id).indexOf('sora-2-eu'), 34);
  });

  test('without pricing it takes the (overridden) prices of basedOn; variants carry over', () => {
    const c = build({ 'sora-2': { pricing: SORA_TIERS } }, [], [{ id: 'my-sora', name: 'Mine', basedOn: 'sora-2', vendor: 'Relay', pricing: undefined }, { id: 'mini2', name: 'Mini 2', basedOn: 'seedance-2.0-mini', vendor: undefined, pricing: undefined }]);
    assert.equal(c.get('my-sora')?.priceFrom, '0.2');
    assert.equal(c.get('my-sora')?.vendor, 'Relay');
    assert.equal(c.validate('mini2', { prompt: P }).resolution, '720p');
    assert.equal(c.price('mini2', c.validate('mini2', { prompt: P })).costMicro, 175_000);
  });

  test('bad added media models are ConfigErrors', () => {
    const add = (m: Partial<AddedMediaModel>) => () => build({}, [], [{ id: 'x-1', name: 'X', basedOn: 'sora-2', vendor: undefined, pricing: undefined, ...m }]);
    configError(add({ basedOn: 'sora-9' }), 'mediaModels[0].basedOn', /not a media model/);
    configError(add({ basedOn: 'gpt-5.5' }), 'mediaModels[0].basedOn');
    configError(add({ id: 'suno' }), 'mediaModels[0].id', /already a model id/);
    configError(add({ id: 'has space' }), 'mediaModels[0].id');
    configError(add({ pricing: [{ key: '10s', price: '1' }] }), 'mediaModels[0].pricing', /15s, 25s/);
  });
});
