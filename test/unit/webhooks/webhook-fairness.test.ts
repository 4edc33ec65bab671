import assert from 'node:assert/strict';
import { test } from 'node:test';
import { failureCountsAgainstTarget, targetPauseMs, webhookLaneCaps } from '../../../src/services/webhooks/webhook-fairness.ts';

test('the caps follow from the slots: an eighth per user, a sixteenth per origin, at least one', () => {
  assert.deepEqual(webhookLaneCaps(64), { perTenant: 8, perTarget: 4 });
  assert.deepEqual(webhookLaneCaps(16), { perTenant: 2, perTarget: 1 });
  assert.deepEqual(webhookLaneCaps(1), { perTenant: 1, perTarget: 1 });
});

test('an origin is paused from its third failure: 10 s, doubling, at most 10 minutes', () => {
  assert.deepEqual([1, 2, 3, 4, 5, 9, 10, 1000].map(targetPauseMs), [0, 0, 10_000, 20_000, 40_000, 600_000, 600_000, 600_000]);
});

test('no answer, 5xx, 429 and redirects count against the origin; other answers and our refusals do not', () => {
  const counts = (statusCode: number | null, final = false) => failureCountsAgainstTarget({ statusCode, final });
  assert.deepEqual([null, 500, 503, 429, 302, 308].map((s) => counts(s)), [true, true, true, true, true, true]);
  assert.deepEqual([400, 401, 404, 422].map((s) => counts(s)), [false, false, false, false]);
  assert.equal(counts(null, true), false, 'a refused destination (private address, port) is our rule');
  assert.equal(counts(410, true), false);
});
