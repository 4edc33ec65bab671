import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ChatModelDefinition } from '../../../src/domain/catalog/catalog.types.ts';
import { chatEntryAtLoss, mediaEntryAtLoss, mediaEntryAtLossOnAnyTier, withoutLossFailovers } from '../../../src/domain/routing/route-cost.ts';

const model = { inputMicroPerMillion: 2_500_000, outputMicroPerMillion: 10_000_000, cachedInputMicroPerMillion: 250_000 } as ChatModelDefinition;

test('a text entry is at a loss when any of its token costs is above the price; without a cost it is not', () => {
  assert.equal(chatEntryAtLoss({ provider: 'a', model: 'm' }, model), false);
  assert.equal(chatEntryAtLoss({ provider: 'a', model: 'm', cost: { inputPrice: '2.5', outputPrice: '10' } }, model), false, 'equal is no loss');
  assert.equal(chatEntryAtLoss({ provider: 'a', model: 'm', cost: { inputPrice: '2.500001' } }, model), true);
  assert.equal(chatEntryAtLoss({ provider: 'a', model: 'm', cost: { outputPrice: '10.01' } }, model), true);
  assert.equal(chatEntryAtLoss({ provider: 'a', model: 'm', cost: { cachedInputPrice: '0.3' } }, model), true);
});

test("a media entry is at a loss on a request when its cost for the request's tier is above that tier's price", () => {
  const entry = { provider: 'a', model: 'm', cost: { pricing: [{ key: '720p', price: '0.05' }, { key: '1080p', price: '0.20' }] } };
  assert.equal(mediaEntryAtLoss(entry, { tierKey: '720p', unitPriceMicro: 60_000 }), false);
  assert.equal(mediaEntryAtLoss(entry, { tierKey: '1080p', unitPriceMicro: 150_000 }), true);
  assert.equal(mediaEntryAtLoss(entry, { tierKey: '4k', unitPriceMicro: 1 }), false, 'a tier without a cost is not known to lose');
  assert.equal(mediaEntryAtLossOnAnyTier(entry, new Map([['720p', 60_000], ['1080p', 150_000]])), true);
  assert.equal(mediaEntryAtLossOnAnyTier(entry, new Map([['720p', 60_000], ['1080p', 250_000]])), false);
});

test('no failover onto a loss: the first entry stays with all its keys, a later loss only when allowed', () => {
  const planned = [
    { provider: 'a', model: 'm', keyId: 'k1', cost: { inputPrice: '9' } },
    { provider: 'a', model: 'm', keyId: 'k2', cost: { inputPrice: '9' } },
    { provider: 'b', model: 'm', keyId: 'k1', cost: { inputPrice: '9' } },
    { provider: 'c', model: 'm', keyId: 'k1', cost: { inputPrice: '9' }, allowLoss: true },
    { provider: 'd', model: 'm', keyId: 'k1' },
  ];
  const kept = withoutLossFailovers(planned, (e) => e.cost !== undefined);
  assert.deepEqual(kept.map((e) => `${e.provider}/${e.keyId}`), ['a/k1', 'a/k2', 'c/k1', 'd/k1']);
  assert.deepEqual(withoutLossFailovers([], () => true), []);
});
