import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ChatModelDefinition } from '../../../src/domain/catalog/catalog.types.ts';
import { chatEntryAtLoss, chatUpstreamCostMicro, mediaEntryAtLoss, mediaEntryAtLossOnAnyTier, mediaUpstreamCostMicro, withoutLossFailovers } from '../../../src/domain/routing/route-cost.ts';

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

test("a text request's upstream cost: the tokens the upstream reported at the entry's cost, rounded up once; null without a cost", () => {
  const cost = { inputPrice: '0.10', cachedInputPrice: '0.01', outputPrice: '0.50' };
  const usage = { inputTokens: 1000, outputTokens: 500, cachedInputTokens: 200, cacheCreationTokens: 0 };
  assert.equal(chatUpstreamCostMicro(undefined, usage, usage), null);
  assert.equal(chatUpstreamCostMicro(cost, usage, usage), 332, '800 × 0.10 + 200 × 0.01 + 500 × 0.50');
  assert.equal(chatUpstreamCostMicro(cost, { ...usage, outputTokens: 501 }, usage), 333, 'a fraction of a micro-USD is a whole one');
  // We billed the client at a bound; the upstream bills what it reported.
  assert.equal(chatUpstreamCostMicro(cost, { ...usage, outputTokens: 5000 }, usage), 2582);
  assert.equal(chatUpstreamCostMicro(cost, { ...usage, outputTokens: Number.NaN }, usage), 332, 'not a count: what we billed');
  assert.equal(chatUpstreamCostMicro({ inputPrice: '1' }, usage, usage), 1000, 'cache reads at the input price when no cached price is set; no output price: 0');
  assert.equal(chatUpstreamCostMicro(cost, undefined, { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, cacheCreationTokens: 0 }), 0, 'no usage, nothing billed');
});

test("a media result's upstream cost: the entry's cost for the task's tier times its units; null for a tier without one", () => {
  const cost = { pricing: [{ key: '720p', price: '0.05' }] };
  assert.equal(mediaUpstreamCostMicro(cost, '720p', 8), 400_000);
  assert.equal(mediaUpstreamCostMicro(cost, '1080p', 8), null);
  assert.equal(mediaUpstreamCostMicro(undefined, '720p', 8), null);
});
