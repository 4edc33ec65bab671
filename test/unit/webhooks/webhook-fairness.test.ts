import assert from 'node:assert/strict';
import { test } from 'node:test';
import { failureCountsAgainstTarget, targetPauseMs, webhookLaneCaps } from '../../../src/services/webhooks/webhook-fairness.ts';

test('the caps follow from the slots: an eighth per user, a sixteenth per origin, at least one', () => {
  assert.deepEqual(webhookLaneCaps(64), { perTenant: 8, perTarget: 4 });
  assert.deepEqual(webhookLaneCaps(16), { perTenant: 2, perTarget: 1 });
  assert.deepEqual(webhookLaneCaps(1), { perTenant: 1, perTarget: 1 });
});

test('an origin keeps failing after 10 failures in a row, or 3 without a success for 2 s; it is paused as long as it has failed, 10 s to 10 minutes', () => {
  const pause = (failures: number, failingForMs: number) => targetPauseMs({ failures, failingForMs });
  assert.deepEqual([pause(1, 60_000), pause(2, 60_000), pause(9, 1_999)], [0, 0, 0], 'a busy receiver with a few failures among successes is not paused');
  assert.equal(pause(3, 1_999), 0);
  assert.equal(pause(3, 2_000), 10_000, 'at least 10 s');
  assert.equal(pause(10, 5), 10_000, 'ten in a row, however fast');
  assert.equal(pause(11, 30_000), 30_000, 'as long as it has been failing: each failed probe about doubles it');
  assert.equal(pause(50, 3_600_000), 600_000, 'at most 10 minutes');
});

test('no answer, 5xx, 429 and redirects count against the origin; other answers and our refusals do not', () => {
  const counts = (statusCode: number | null, final = false) => failureCountsAgainstTarget({ statusCode, final });
  assert.deepEqual([null, 500, 503, 429, 302, 308].map((s) => counts(s)), [true, true, true, true, true, true]);
  assert.deepEqual([400, 401, 404, 422].map((s) => counts(s)), [false, false, false, false]);
  assert.equal(counts(null, true), false, 'a refused destination (private address, port) is our rule');
  assert.equal(counts(410, true), false);
});
