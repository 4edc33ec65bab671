import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ConfigError } from '../../../src/domain/config-error.ts';
import type { ProviderConfig } from '../../../src/config/config.types.ts';
import { createMediaProvider, isMediaProviderType, MEDIA_PROVIDER_FACTORIES, UnknownProviderTypeError } from '../../../src/providers/registries/media.registry.ts';

function config(type: string, overrides: Partial<ProviderConfig> = {}): ProviderConfig {
  return { type, baseUrl: undefined, apiKey: 'k', timeoutMs: 1_000, concurrency: 2, options: {}, ...overrides };
}

describe('media provider registry', () => {
  test('every style is built with its name, type and default poll delay', async () => {
    const cases: Array<[string, number, string | undefined]> = [
      ['kie', 5_000, undefined],
      ['fal', 3_000, undefined],
      ['replicate', 3_000, undefined],
      ['openai', 10_000, undefined],
      ['switchboard', 2_000, 'https://peer.example.com'],
      ['google', 10_000, undefined],
    ];
    for (const [type, pollMs, baseUrl] of cases) {
      const p = createMediaProvider(`${type}-main`, config(type, { baseUrl }));
      assert.equal(p.name, `${type}-main`);
      assert.equal(p.type, type);
      assert.equal(p.defaultPollMs, pollMs, type);
      await p.close?.();
    }
    assert.deepEqual(Object.keys(MEDIA_PROVIDER_FACTORIES).sort(), ['fal', 'google', 'kie', 'local', 'openai', 'replicate', 'switchboard']);
    assert.equal(isMediaProviderType('kie'), true);
    assert.equal(isMediaProviderType('anthropic'), false);
    assert.equal(isMediaProviderType('toString'), false);
  });

  test('callbacks and cancel exist where the upstream has them', () => {
    const has = (type: string) => {
      const p = createMediaProvider('x', config(type, { baseUrl: 'https://peer.example.com' }));
      void p.close?.();
      return [typeof p.parseCallback === 'function', typeof p.cancel === 'function'];
    };
    assert.deepEqual(has('kie'), [true, false]);
    assert.deepEqual(has('fal'), [true, true]);
    assert.deepEqual(has('replicate'), [true, true]);
    assert.deepEqual(has('openai'), [false, false]);
    assert.deepEqual(has('switchboard'), [true, false]);
    assert.deepEqual(has('google'), [false, false]);
  });

  test('an unknown type is refused with a message naming the provider and the known types', () => {
    assert.throws(
      () => createMediaProvider('video-x', config('runway')),
      (error: unknown) => {
        assert.ok(error instanceof UnknownProviderTypeError);
        assert.equal(error.providerName, 'video-x');
        assert.equal(error.providerType, 'runway');
        assert.equal(error.message, 'provider "video-x" has type "runway", which is not a media provider type (known: kie, fal, replicate, openai, switchboard, google, local)');
        return true;
      },
    );
    assert.throws(() => createMediaProvider('proto', config('__proto__')), UnknownProviderTypeError);
  });

  test('missing key, missing or bad base URL and bad options stop the start with the field named', () => {
    assert.throws(() => createMediaProvider('kie-main', config('kie', { apiKey: undefined })), (e: unknown) => e instanceof ConfigError && e.field === 'providers.kie-main.apiKey');
    assert.throws(() => createMediaProvider('peer', config('switchboard')), (e: unknown) => e instanceof ConfigError && e.field === 'providers.peer.baseUrl');
    assert.throws(() => createMediaProvider('fal-main', config('fal', { baseUrl: 'ftp://queue.fal.run' })), (e: unknown) => e instanceof ConfigError && e.field === 'providers.fal-main.baseUrl');
    assert.throws(
      () => createMediaProvider('kie-main', config('kie', { options: { pollIntervalMs: 'soon' } })),
      (e: unknown) => e instanceof ConfigError && e.field === 'providers.kie-main.options.pollIntervalMs',
    );
    assert.throws(
      () => createMediaProvider('gemini', config('google', { options: { apiVersion: '../v1' } })),
      (e: unknown) => e instanceof ConfigError && e.field === 'providers.gemini.options.apiVersion',
    );
    assert.throws(() => createMediaProvider('gemini', config('google', { apiKey: undefined })), (e: unknown) => e instanceof ConfigError && e.field === 'providers.gemini.apiKey');
  });
});
