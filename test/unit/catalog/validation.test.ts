import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { catalog, IMG, rejects, valid } from './catalog-helpers.ts';

const P = 'a lighthouse at dusk';

describe('validation common to every family', () => {
  test('a non-object input is refused, naming input', () => {
    for (const bad of [null, [], 'prompt', 3, true]) rejects('sora-2', bad, 'input', /must be a JSON object/);
  });

  test('a missing, unknown or text model is refused, naming model', () => {
    rejects('nope', { prompt: P }, 'model', /not a media model/);
    rejects('', { prompt: P }, 'model');
    rejects('gpt-5.5', { prompt: P }, 'model', /text model/);
  });

  test('unknown fields are refused, naming the field and listing the allowed ones', () => {
    rejects('sora-2', { prompt: P, quality: 'hd' }, 'quality', /not a known field; allowed fields: prompt, aspectRatio, urls, duration/);
    rejects('seedance-2.0', { prompt: P, imageWithRoles: [{ url: IMG, role: 'first_frame', weight: 1 }] }, 'imageWithRoles[0].weight');
    rejects('suno', { gptDescriptionPrompt: P, customModel: { name: 'a', audioUrls: [], extra: 1 } }, 'customModel.extra');
  });

  test('missing required fields are refused', () => {
    rejects('sora-2', {}, 'prompt', /is required/);
    rejects('veo-3.1-lite', { aspectRatio: '16:9' }, 'prompt', /is required/);
    rejects('seedance-2.0', { prompt: P, imageWithRoles: [{ url: IMG }] }, 'imageWithRoles[0].role', /is required/);
  });

  test('wrong types are refused; numbers are never accepted as strings, null is not "absent"', () => {
    rejects('sora-2', { prompt: 42 }, 'prompt', /must be a string/);
    rejects('sora-2', { prompt: P, duration: '10' }, 'duration', /must be one of 10, 15, 25 \(got "10"\); send a JSON number/);
    rejects('seedance-2.0', { prompt: P, duration: '5' }, 'duration', /must be a number/);
    rejects('seedance-2.0', { prompt: P, generateAudio: 'true' }, 'generateAudio', /true or false/);
    rejects('seedance-2.0', { prompt: P, seed: null }, 'seed', /got null/);
    rejects('seedance-2.0', { prompt: P, imageUrls: IMG }, 'imageUrls', /must be an array/);
    rejects('seedance-2.0', { prompt: P, imageUrls: [42] }, 'imageUrls[0]', /must be a string/);
    rejects('seedance-2.0', { prompt: P, duration: Number.NaN }, 'duration');
  });

  test('unsupported enum values are refused with the allowed list', () => {
    rejects('sora-2', { prompt: P, aspectRatio: '1:1' }, 'aspectRatio', /must be one of "16:9", "9:16"/);
    rejects('sora-2', { prompt: P, duration: 12 }, 'duration', /one of 10, 15, 25/);
    rejects('nano-banana-2', { prompt: P, resolution: '4k' }, 'resolution', /"512px", "1K", "2K", "4K"/);
    rejects('seedance-2.0', { prompt: P, imageWithRoles: [{ url: IMG, role: 'first_frame' }, { url: IMG, role: 'middle' }] }, 'imageWithRoles[1].role', /first_frame/);
  });

  test('out-of-range and fractional numbers are refused', () => {
    rejects('seedance-2.0', { prompt: P, duration: 3 }, 'duration', /from 4 to 15/);
    rejects('seedance-2.0', { prompt: P, duration: 16 }, 'duration', /from 4 to 15/);
    rejects('seedance-2.0', { prompt: P, duration: 5.5 }, 'duration', /whole number/);
    rejects('seedance-2.0', { prompt: P, seed: -1 }, 'seed');
  });

  test('prompt length limits per family (SPEC Limits)', () => {
    const cases: Array<[string, number, Record<string, unknown>]> = [
      ['seedance-2.0', 4000, {}],
      ['seedance-1.5-pro', 4000, {}],
      ['pixverse-v6', 5000, {}],
      ['wan-3.0', 20_000, {}],
      ['qwen-image', 1000, {}],
      ['wan-2.7-image', 5000, {}],
    ];
    for (const [model, max, extra] of cases) {
      assert.doesNotThrow(() => valid(model, { prompt: 'a'.repeat(max), ...extra }), model);
      rejects(model, { prompt: 'a'.repeat(max + 1), ...extra }, 'prompt', new RegExp(`at most ${max} characters`));
    }
    assert.doesNotThrow(() => valid('pixverse-v6', { prompt: P, negativePrompt: 'n'.repeat(2048) }));
    rejects('pixverse-v6', { prompt: P, negativePrompt: 'n'.repeat(2049) }, 'negativePrompt', /at most 2048/);
  });

  test('required strings must not be blank; URLs must be http(s)', () => {
    rejects('sora-2', { prompt: '   ' }, 'prompt', /must not be empty/);
    rejects('sora-2', { prompt: P, urls: ['ftp://x/a.png'] }, 'urls[0]', /http or https URL/);
    rejects('sora-2', { prompt: P, urls: ['not a url'] }, 'urls[0]');
    rejects('sora-2', { prompt: P, urls: ['data:image/png;base64,AAAA'] }, 'urls[0]');
    assert.doesNotThrow(() => valid('gpt-image-2', { prompt: P, urls: ['data:image/png;base64,iVBORw0KGgo='] }));
  });

  test('array sizes are enforced', () => {
    rejects('sora-2-official', { prompt: P, urls: [IMG, IMG] }, 'urls', /at most 1 item/);
    rejects('seedance-2.0', { prompt: P, imageUrls: Array(10).fill(IMG) }, 'imageUrls', /at most 9 items/);
    rejects('pixverse-v6', { prompt: P, imgReferences: [] }, 'imgReferences', /at least 1 item/);
  });

  test('defaults are applied only to fields that have one, and the input is not mutated', () => {
    const raw = { prompt: P };
    const out = valid('seedance-2.0', raw);
    assert.deepEqual(out, {
      prompt: P,
      duration: 5,
      size: '16:9',
      resolution: '480p',
      generateAudio: true,
      nsfwCheck: false,
      returnLastFrame: false,
    });
    assert.deepEqual(raw, { prompt: P });
    assert.deepEqual(valid('wan-2.7', { prompt: P }), { prompt: P, size: '16:9', resolution: '720p' });
  });

  test('a field the model ignores is accepted and dropped', () => {
    const out = valid('seedream-4.5', { prompt: P, outputFormat: 'png', promptOptimizeMode: 'fast' });
    assert.equal(out.outputFormat, undefined);
    assert.equal(out.promptOptimizeMode, undefined);
    assert.equal(valid('seedream-5.0-lite', { prompt: P, outputFormat: 'png' }).outputFormat, 'png');
    assert.equal(valid('seedream-4.0', { prompt: P }).promptOptimizeMode, 'standard');
    rejects('seedream-4.5', { prompt: P, outputFormat: 'gif' }, 'outputFormat');
  });

  test('a hidden model is refused like an unknown one', async () => {
    const { Catalog } = await import('../../../src/domain/catalog/catalog.ts');
    const hidden = Catalog.build({ models: { 'sora-2': { hidden: true } }, addedChatModels: [], addedMediaModels: [] });
    assert.throws(() => hidden.validate('sora-2', { prompt: P }), /not a media model/);
    assert.equal(hidden.get('sora-2'), undefined);
    assert.equal(hidden.media('sora-2'), undefined);
    assert.ok(!hidden.list().some((m) => m.id === 'sora-2'));
    // Tasks already created keep their price and output spec.
    assert.equal(hidden.price('sora-2', { prompt: P, aspectRatio: '16:9', duration: 15 }).costMicro, 250_000);
    assert.equal(catalog.get('sora-2')?.id, 'sora-2');
  });
});
