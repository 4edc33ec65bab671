import assert from 'node:assert/strict';
import { test } from 'node:test';
import { widerLimit } from '../../../src/domain/api-key-bounds.ts';
import { type ApiKeyLimits, NO_KEY_LIMITS } from '../../../src/domain/api-key-limits.ts';

const BOUND: ApiKeyLimits = {
  spendCapMicro: 1_000,
  spendCapPeriod: 'month',
  expiresAt: 2_000_000,
  allowedModels: ['a', 'b'],
  requestsPerMinute: 10,
  tokensPerMinute: 10_000,
  concurrentGenerations: 2,
};

test('a key without limits bounds nothing; a key within the bound passes, field by field', () => {
  assert.equal(widerLimit(NO_KEY_LIMITS, BOUND), undefined);
  assert.equal(widerLimit(NO_KEY_LIMITS, NO_KEY_LIMITS), undefined);
  assert.equal(widerLimit(BOUND, BOUND), undefined);
  assert.equal(widerLimit(BOUND, { ...BOUND, spendCapMicro: 0, spendCapPeriod: 'total', expiresAt: 1, allowedModels: [], requestsPerMinute: 1, tokensPerMinute: 1, concurrentGenerations: 1 }), undefined);
});

test('each wider field is named: a missing limit is wider than any', () => {
  for (const [candidate, field] of [
    [{ spendCapMicro: null }, 'limits.spendCapMicroUsd'],
    [{ spendCapMicro: 1_001 }, 'limits.spendCapMicroUsd'],
    [{ expiresAt: null }, 'limits.expiresAt'],
    [{ expiresAt: 2_000_001 }, 'limits.expiresAt'],
    [{ allowedModels: null }, 'limits.allowedModels'],
    [{ allowedModels: ['a', 'c'] }, 'limits.allowedModels'],
    [{ requestsPerMinute: null }, 'limits.requestsPerMinute'],
    [{ tokensPerMinute: null }, 'limits.tokensPerMinute'],
    [{ tokensPerMinute: 10_001 }, 'limits.tokensPerMinute'],
    [{ concurrentGenerations: 3 }, 'limits.concurrentGenerations'],
  ] as const) {
    assert.equal(widerLimit(BOUND, { ...BOUND, ...candidate })?.field, field, JSON.stringify(candidate));
  }
  assert.match(widerLimit(BOUND, { ...BOUND, allowedModels: ['a', 'c'] })?.requirement ?? '', /c is not/);
});

test('under a total cap a monthly cap is wider (it renews); under a monthly cap a total one is not', () => {
  const total: ApiKeyLimits = { ...NO_KEY_LIMITS, spendCapMicro: 1_000, spendCapPeriod: 'total' };
  assert.equal(widerLimit(total, { ...total, spendCapPeriod: 'month' })?.field, 'limits.spendCapPeriod');
  assert.equal(widerLimit({ ...total, spendCapPeriod: 'month' }, total), undefined);
});
