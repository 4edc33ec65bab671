import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { MeasuredMedia, ParamField } from '../../../src/domain/catalog/catalog.types.ts';
import { CAPABILITIES } from '../../../src/domain/catalog/dsl/capabilities.ts';
import { PARAM_FIELD_JSON_SCHEMA } from '../../../src/domain/catalog/param-field.schema.ts';
import { usdToMicro } from '../../../src/domain/money.ts';
import { AUD, catalog, IMG, VID, video } from './catalog-helpers.ts';

const MEDIA_IDS = [
  'sora-2',
  'sora-2-pro',
  'sora-2-official',
  'veo-3.1-fast',
  'veo-3.1-quality',
  'veo-3.1-lite',
  'nano-banana-2',
  'nano-banana-pro',
  'grok-imagine-video',
  'grok-imagine-image',
  'z-image-turbo',
  'seedance-2.0',
  'seedance-2.0-mini',
  'seedance-2.5',
  'seedance-1.5-pro',
  'gpt-image-2',
  'gpt-image-2-official',
  'gpt-image-1.5',
  'kling-2.6-motion-control',
  'kling-3.0-motion-control',
  'pixverse-v6',
  'pixverse-v5.6',
  'seedream-4.0',
  'seedream-4.5',
  'seedream-5.0-lite',
  'seedream-5.0-pro',
  'wan-2.7',
  'wan-3.0',
  'wan-3.0-prime',
  'qwen-image',
  'wan-2.7-image',
  'midjourney',
  'midjourney-video',
  'suno',
];

const TEXT_IDS = [
  'gpt-5.5',
  'gpt-5.4',
  'gpt-5.4-mini',
  'claude-opus-4-7',
  'claude-sonnet-4-6',
  'claude-haiku-4-5',
  'gemini-3.1-pro',
  'gemini-3.1-flash-lite',
  'deepseek-v4-flash',
  'deepseek-v4-pro',
  'grok-4.3',
  'qwen3.6-plus',
];

interface DefaultCase {
  /** Micro-USD of a request with the defaults only (plus what the model needs). */
  micro: number;
  units: number;
  extra?: Record<string, unknown>;
  noPrompt?: boolean;
  measured?: MeasuredMedia[];
}

const DEFAULTS: Record<string, DefaultCase> = {
  'sora-2': { micro: 150_000, units: 1 },
  'sora-2-pro': { micro: 1_390_000, units: 1 },
  'sora-2-official': { micro: 400_000, units: 4 },
  'veo-3.1-fast': { micro: 300_000, units: 1 },
  'veo-3.1-quality': { micro: 1_200_000, units: 1 },
  'veo-3.1-lite': { micro: 640_000, units: 1 },
  'nano-banana-2': { micro: 67_000, units: 1 },
  'nano-banana-pro': { micro: 134_000, units: 1 },
  'grok-imagine-video': { micro: 300_000, units: 6 },
  'grok-imagine-image': { micro: 20_000, units: 1 },
  'z-image-turbo': { micro: 10_000, units: 1 },
  'seedance-2.0': { micro: 412_500, units: 5 },
  'seedance-2.0-mini': { micro: 175_000, units: 5 },
  'seedance-2.5': { micro: 600_500, units: 5 },
  'seedance-1.5-pro': { micro: 96_000, units: 4 },
  'gpt-image-2': { micro: 15_000, units: 1 },
  'gpt-image-2-official': { micro: 53_000, units: 1 },
  'gpt-image-1.5': { micro: 20_000, units: 1 },
  'kling-2.6-motion-control': { micro: 700_000, units: 10, measured: [video(VID, 10, 'mp4'), { url: IMG, format: 'png', bytes: 1000 }] },
  'kling-3.0-motion-control': { micro: 1_130_000, units: 10, measured: [video(VID, 9.2, 'mov'), { url: IMG, format: 'jpeg', bytes: 1000 }] },
  'pixverse-v6': { micro: 125_000, units: 5 },
  'pixverse-v5.6': { micro: 440_000, units: 5 },
  'seedream-4.0': { micro: 30_000, units: 1 },
  'seedream-4.5': { micro: 40_000, units: 1 },
  'seedream-5.0-lite': { micro: 35_000, units: 1 },
  'seedream-5.0-pro': { micro: 70_000, units: 1 },
  'wan-2.7': { micro: 500_000, units: 5 },
  'wan-3.0': { micro: 200_000, units: 5 },
  'wan-3.0-prime': { micro: 306_000, units: 5 },
  'qwen-image': { micro: 20_000, units: 1 },
  'wan-2.7-image': { micro: 30_000, units: 1 },
  midjourney: { micro: 56_300, units: 1 },
  'midjourney-video': { micro: 250_000, units: 1, extra: { imageUrls: [IMG] } },
  suno: { micro: 60_000, units: 1, noPrompt: true, extra: { gptDescriptionPrompt: 'a calm piano song' } },
};

/** A value for a required param without a default, taken from the param itself. */
function sample(p: ParamField): unknown {
  const url = p.mediaKind === 'video' ? VID : p.mediaKind === 'audio' ? AUD : IMG;
  if (p.isArray && p.isMedia) return [url];
  if (p.options && p.options.length > 0) return p.options[0]?.value;
  if (p.isMedia) return url;
  if (p.kind === 'number') return p.minimum ?? 1;
  if (p.kind === 'boolean') return false;
  return 'x';
}

function defaultRequest(id: string): Record<string, unknown> {
  const model = catalog.get(id);
  assert.ok(model);
  const c = DEFAULTS[id];
  assert.ok(c, `no default case for ${id}`);
  const input: Record<string, unknown> = {};
  for (const p of model.params) if (p.required && p.default === undefined) input[p.name] = sample(p);
  if (!c.noPrompt && model.params.some((p) => p.name === 'prompt')) input.prompt = 'a red fox running through snow';
  return { ...input, ...(c.extra ?? {}) };
}

describe('the built-in models', () => {
  test('34 media models in catalog order, then the 12 text models', () => {
    assert.deepEqual(
      catalog.list().map((m) => m.id),
      [...MEDIA_IDS, ...TEXT_IDS],
    );
    assert.deepEqual(
      catalog.mediaModels().map((m) => m.id),
      MEDIA_IDS,
    );
    assert.deepEqual(
      catalog.chatModels().map((m) => m.id),
      TEXT_IDS,
    );
  });

  for (const id of MEDIA_IDS) {
    test(`${id}: a request with the param defaults validates and costs the default tier`, () => {
      const model = catalog.get(id);
      assert.ok(model);
      const c = DEFAULTS[id];
      assert.ok(c);
      const input = catalog.validate(id, defaultRequest(id));
      for (const p of model.params) {
        if (p.default !== undefined && !p.deprecated && input[p.name] !== undefined) assert.deepEqual(input[p.name], p.default, `default of ${p.name}`);
      }
      const probes = catalog.probeRequests(id, input);
      if (c.measured) catalog.checkMeasured(id, input, c.measured);
      else assert.deepEqual(probes, []);
      const q = catalog.price(id, input, c.measured);
      assert.equal(q.costMicro, c.micro);
      assert.equal(q.units, c.units);
      const def = model.pricing.filter((t) => t.isDefault);
      assert.equal(def.length, 1, 'exactly one default tier');
      assert.equal(q.tierKey, def[0]?.key);
      assert.equal(model.priceFrom, def[0]?.price);
      assert.equal(q.unitPriceMicro, usdToMicro(model.priceFrom ?? ''));
      assert.equal(q.unit, model.priceUnit);
    });
  }

  test('every media model publishes params with the required members, in form order, prompt first when present', () => {
    for (const id of MEDIA_IDS) {
      const model = catalog.get(id);
      assert.ok(model);
      assert.equal(model.kind, 'media');
      assert.ok(model.params.length > 0);
      for (const p of model.params) {
        for (const key of ['name', 'label', 'kind', 'isArray', 'required', 'isMedia', 'isPrompt', 'multiline', 'deprecated'] as const) {
          assert.notEqual(p[key], undefined, `${id}.${p.name} lacks ${key}`);
        }
        assert.ok(['string', 'number', 'boolean'].includes(p.kind));
        if (p.options) assert.ok(p.options.every((o) => typeof o.label === 'string'));
      }
      const names = model.params.map((p) => p.name);
      assert.equal(new Set(names).size, names.length, `${id} has duplicate params`);
      const first = names[0];
      assert.ok(first === 'prompt' || first === 'action', `${id} starts with ${first}`);
    }
  });

  test('param details follow SPEC (spot checks)', () => {
    const seedance = catalog.get('seedance-2.0');
    assert.deepEqual(
      seedance?.params.map((p) => p.name),
      ['prompt', 'duration', 'size', 'resolution', 'seed', 'generateAudio', 'nsfwCheck', 'returnLastFrame', 'imageUrls', 'imageWithRoles', 'videoUrls', 'audioUrls', 'tools'],
    );
    const roles = seedance?.params.find((p) => p.name === 'imageWithRoles');
    assert.equal(roles?.isArray, true);
    assert.equal(roles?.isMedia, true);
    assert.equal(roles?.maxItems, 2);
    assert.deepEqual(
      roles?.fields?.map((f) => [f.name, f.required]),
      [
        ['url', true],
        ['role', true],
      ],
    );
    assert.deepEqual(
      roles?.fields?.[1]?.options?.map((o) => o.value),
      ['first_frame', 'last_frame'],
    );
    const prompt = seedance?.params[0];
    assert.equal(prompt?.isPrompt, true);
    assert.equal(prompt?.multiline, true);
    assert.equal(prompt?.maxLength, 4000);
    const mini = catalog.get('seedance-2.0-mini')?.params.find((p) => p.name === 'resolution');
    assert.deepEqual(
      mini?.options?.map((o) => o.value),
      ['480p', '720p'],
    );
    assert.equal(mini?.default, '720p');
    const sora = catalog.get('sora-2')?.params.find((p) => p.name === 'duration');
    assert.equal(sora?.kind, 'number');
    assert.deepEqual(
      sora?.options?.map((o) => o.value),
      [10, 15, 25],
    );
    const seed = catalog.get('wan-3.0')?.params.find((p) => p.name === 'seed');
    assert.equal(seed?.minimum, 0);
    assert.equal(seed?.maximum, 2_147_483_647);
    const parent = catalog.get('midjourney')?.params.find((p) => p.name === 'parentTaskId');
    assert.equal(parent?.isTaskReference, true);
    const custom = catalog.get('suno')?.params.find((p) => p.name === 'customModel');
    assert.equal(custom?.isArray, false);
    assert.equal(custom?.fields?.find((f) => f.name === 'audioUrls')?.minItems, 6);
    assert.equal(custom?.fields?.find((f) => f.name === 'audioUrls')?.maxItems, 24);
    const v9 = catalog.get('kling-2.6-motion-control')?.params;
    assert.deepEqual(
      v9?.filter((p) => p.required).map((p) => p.name),
      ['imageUrls', 'videoUrls', 'characterOrientation'],
    );
  });

  test('a field a model ignores is published as deprecated', () => {
    const plain = catalog.get('seedream-4.5')?.params;
    assert.equal(plain?.find((p) => p.name === 'outputFormat')?.deprecated, true);
    assert.equal(plain?.find((p) => p.name === 'promptOptimizeMode')?.deprecated, true);
    const lite = catalog.get('seedream-5.0-lite')?.params;
    assert.equal(lite?.find((p) => p.name === 'outputFormat')?.deprecated, false);
    assert.equal(lite?.find((p) => p.name === 'promptOptimizeMode')?.deprecated, true);
    const v4 = catalog.get('seedream-4.0')?.params;
    assert.equal(v4?.find((p) => p.name === 'promptOptimizeMode')?.deprecated, false);
  });

  test('capabilities are derived from the fields and use the documented vocabulary', () => {
    for (const id of MEDIA_IDS) {
      const caps = catalog.get(id)?.capabilities ?? [];
      assert.ok(caps.length > 0, id);
      for (const c of caps) assert.ok((CAPABILITIES as readonly string[]).includes(c), `${id}: ${c}`);
    }
    const caps = (id: string) => catalog.get(id)?.capabilities ?? [];
    assert.deepEqual(caps('veo-3.1-lite'), ['text-to-video']);
    assert.deepEqual(caps('z-image-turbo'), ['text-to-image']);
    assert.deepEqual(caps('kling-2.6-motion-control'), ['motion-transfer']);
    for (const c of ['text-to-video', 'image-to-video', 'first-last-frame', 'reference-images', 'video-reference', 'audio-reference', 'audio-generation', 'web-search', 'seed']) {
      assert.ok(caps('seedance-2.0').includes(c), c);
    }
    assert.ok(!caps('seedance-1.5-pro').includes('web-search'));
    assert.ok(caps('seedance-2.5').includes('video-extension'));
    assert.ok(caps('pixverse-v6').includes('negative-prompt'));
    assert.ok(caps('wan-2.7').includes('video-editing'));
    assert.ok(caps('wan-3.0').includes('document-reference'));
    assert.ok(caps('midjourney').includes('upscale') && caps('midjourney').includes('inpainting'));
    assert.ok(caps('midjourney-video').includes('batch'));
    assert.ok(caps('suno').includes('music-generation') && caps('suno').includes('stem-separation'));
    assert.ok(caps('wan-2.7-image').includes('custom-size'));
    assert.ok(caps('qwen-image').includes('editing'));
  });

  test('media model info carries family, type, group and vendor', () => {
    assert.deepEqual(catalog.media('seedance-2.0-mini'), {
      id: 'seedance-2.0-mini',
      family: 'V6',
      type: 'VIDEO',
      group: 'seedance',
      name: 'Seedance 2.0 Mini',
      vendor: 'ByteDance',
    });
    assert.equal(catalog.media('suno')?.type, 'MUSIC');
    assert.equal(catalog.media('midjourney')?.family, 'I8');
    assert.equal(catalog.media('midjourney-video')?.group, 'midjourney');
    assert.equal(catalog.media('gpt-5.5'), undefined);
    assert.equal(catalog.media('nope'), undefined);
  });

  test('the JSON Schema of every media model matches its params', () => {
    for (const id of MEDIA_IDS) {
      const schema = catalog.inputSchema(id);
      const params = catalog.get(id)?.params ?? [];
      assert.equal(schema.$schema, 'https://json-schema.org/draft/2020-12/schema');
      assert.equal(schema.type, 'object');
      assert.equal(schema.additionalProperties, false);
      const props = schema.properties as Record<string, Record<string, unknown>>;
      assert.deepEqual(
        Object.keys(props),
        params.map((p) => p.name),
      );
      assert.deepEqual(
        (schema.required as string[] | undefined) ?? [],
        params.filter((p) => p.required).map((p) => p.name),
      );
      for (const p of params) {
        const s = props[p.name] ?? {};
        const target = (p.isArray ? s.items : s) as Record<string, unknown>;
        if (p.isArray) assert.equal(s.type, 'array');
        if (p.options && !p.fields) assert.deepEqual(target.enum, p.options.map((o) => o.value), `${id}.${p.name}`);
        if (p.fields) assert.equal(target.additionalProperties, false);
        if (p.maximum !== undefined) assert.equal(target.maximum, p.maximum);
        if (p.maxLength !== undefined) assert.equal(target.maxLength, p.maxLength);
        if (p.default !== undefined) assert.deepEqual(s.default, p.default);
      }
      assert.doesNotThrow(() => JSON.stringify(schema));
    }
    const v6 = catalog.inputSchema('seedance-2.0').properties as Record<string, Record<string, unknown>>;
    assert.deepEqual(v6.duration, { type: 'integer', minimum: 4, maximum: 15, description: 'Length of the video in seconds; billed per second.', default: 5 });
    assert.deepEqual((v6.imageWithRoles!.items as Record<string, unknown>).required, ['url', 'role']);
    const suno = catalog.inputSchema('suno').properties as Record<string, Record<string, unknown>>;
    assert.equal((suno.backgroundColors!.items as Record<string, unknown>).pattern, '^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$');
  });

  test('every member of every published param is declared in PARAM_FIELD_JSON_SCHEMA', () => {
    const declared = Object.keys(PARAM_FIELD_JSON_SCHEMA.properties as Record<string, unknown>);
    const nested = (PARAM_FIELD_JSON_SCHEMA.properties as Record<string, { items: { properties: Record<string, unknown> } }>).fields?.items.properties ?? {};
    for (const id of MEDIA_IDS) {
      for (const p of catalog.get(id)?.params ?? []) {
        for (const key of Object.keys(p)) assert.ok(declared.includes(key), `${id}.${p.name}.${key}`);
        for (const f of p.fields ?? []) {
          for (const key of Object.keys(f)) assert.ok(key in nested, `${id}.${p.name}.${f.name}.${key}`);
          assert.equal(f.fields, undefined, 'fields nest one level only');
        }
      }
    }
  });

  test('text models: prices per 1M tokens, cached input, protocols', () => {
    const opus = catalog.chat('claude-opus-4-7');
    assert.equal(opus?.inputMicroPerMillion, 5_000_000);
    assert.equal(opus?.outputMicroPerMillion, 25_000_000);
    assert.equal(opus?.cachedInputMicroPerMillion, 500_000);
    assert.deepEqual(opus?.protocols, ['anthropic', 'openai']);
    const ds = catalog.chat('deepseek-v4-pro');
    assert.equal(ds?.inputMicroPerMillion, 435_000);
    assert.equal(ds?.outputMicroPerMillion, 870_000);
    assert.deepEqual(ds?.protocols, ['openai']);
    for (const id of TEXT_IDS) {
      const m = catalog.get(id);
      assert.equal(m?.kind, 'llm');
      assert.equal(m?.type, 'TEXT');
      assert.equal(m?.priceUnit, 'megatoken');
      assert.equal(m?.priceFrom, m?.pricing.find((t) => t.key === 'input')?.price);
      assert.deepEqual(m?.params, []);
      const chat = catalog.chat(id);
      assert.ok(chat && chat.contextWindow > 0 && chat.maxOutputTokens > 0);
      assert.deepEqual(m?.protocols, id.startsWith('claude') ? ['anthropic', 'openai'] : ['openai']);
    }
    assert.equal(catalog.get('gpt-5.5')?.priceFrom, '5');
    assert.equal(catalog.get('claude-opus-5'), undefined);
  });

  test('published models cannot be mutated by callers', () => {
    const m = catalog.get('sora-2');
    assert.throws(() => {
      (m as { name: string }).name = 'changed';
    });
    assert.equal(catalog.get('sora-2')?.name, 'Sora 2');
  });
});
