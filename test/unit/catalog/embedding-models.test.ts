/** The embedding models of the catalog: built in, apart from chat and media, and what an operator may change. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Catalog } from '../../../src/domain/catalog/catalog.ts';
import type { ModelOverride } from '../../../src/domain/catalog/catalog-overrides.ts';
import { ConfigError } from '../../../src/domain/config-error.ts';

function build(models: Record<string, ModelOverride> = {}): Catalog {
  return Catalog.build({ models, addedChatModels: [], addedMediaModels: [] });
}

test('three built-in embedding models, neither chat nor media models, not in the public catalog list', () => {
  const catalog = build();
  assert.deepEqual(catalog.embeddingModels().map((m) => [m.id, m.inputMicroPerMillion, m.defaultDimensions]), [
    ['text-embedding-3-small', 20_000, 1536],
    ['text-embedding-3-large', 130_000, 3072],
    ['bge-m3', 10_000, 1024],
  ]);
  assert.equal(catalog.chat('text-embedding-3-small'), undefined);
  assert.equal(catalog.media('text-embedding-3-small'), undefined);
  assert.equal(catalog.get('text-embedding-3-small'), undefined);
  assert.ok(!catalog.list().some((m) => m.id.startsWith('text-embedding')));
});

test('an operator changes the price, the name or hides one; chat-only and media-only fields are refused', () => {
  const catalog = build({ 'bge-m3': { inputPrice: '0.016', name: 'BGE M3 (DeepInfra)' }, 'text-embedding-3-large': { hidden: true } });
  assert.equal(catalog.embedding('bge-m3')?.inputMicroPerMillion, 16_000);
  assert.equal(catalog.embedding('bge-m3')?.name, 'BGE M3 (DeepInfra)');
  assert.equal(catalog.embedding('text-embedding-3-large'), undefined);
  assert.equal(catalog.embeddingModels().length, 2);
  assert.throws(() => build({ 'bge-m3': { outputPrice: '1' } }), (e: unknown) => e instanceof ConfigError && /outputPrice/.test(e.message));
  assert.throws(() => build({ 'bge-m3': { inputPrice: 'cheap' } }), (e: unknown) => e instanceof ConfigError && /inputPrice/.test(e.message));
  assert.throws(
    () => Catalog.build({ models: {}, addedMediaModels: [], addedChatModels: [{ id: 'bge-m3', name: 'x', vendor: undefined, inputPrice: '1', outputPrice: '1', cachedInputPrice: undefined, protocols: ['openai'], contextWindow: 1000, maxOutputTokens: 100 }] }),
    (e: unknown) => e instanceof ConfigError && /already a model id/.test(e.message),
  );
});
