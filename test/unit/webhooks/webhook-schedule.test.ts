import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  DEFAULT_RETRY_SCHEDULE_MS,
  delayBeforeAttempt,
  MAX_RETRY_AFTER_MS,
  nextAttemptAt,
  parseRetryAfter,
} from '../../../src/services/webhooks/webhook-schedule.ts';
import { activeWebhookSecrets, WEBHOOK_SECRET_GRACE_MS } from '../../../src/services/webhooks/webhook-secret.service.ts';

const S = 1000;
const MIN = 60 * S;
const H = 60 * MIN;

describe('webhook retry schedule', () => {
  test('immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h', () => {
    assert.deepEqual(DEFAULT_RETRY_SCHEDULE_MS, [0, 5 * S, 5 * MIN, 30 * MIN, 2 * H, 5 * H, 10 * H, 10 * H]);
  });

  test('each delay is jittered within ±10 %; the first attempt is immediate', () => {
    assert.equal(delayBeforeAttempt(1, DEFAULT_RETRY_SCHEDULE_MS, () => 0.99), 0);
    assert.equal(delayBeforeAttempt(2, DEFAULT_RETRY_SCHEDULE_MS, () => 0), 4500);
    assert.equal(delayBeforeAttempt(2, DEFAULT_RETRY_SCHEDULE_MS, () => 1), 5500);
    assert.equal(delayBeforeAttempt(3, DEFAULT_RETRY_SCHEDULE_MS, () => 0.5), 5 * MIN);
    for (let i = 0; i < 200; i++) {
      const d = delayBeforeAttempt(8, DEFAULT_RETRY_SCHEDULE_MS) ?? -1;
      assert.ok(d >= 9 * H && d <= 11 * H, String(d));
    }
    assert.equal(delayBeforeAttempt(9, DEFAULT_RETRY_SCHEDULE_MS), undefined);
  });

  test('no next attempt after the last one', () => {
    assert.equal(nextAttemptAt({ attemptsMade: 8, now: 0, schedule: DEFAULT_RETRY_SCHEDULE_MS }), undefined);
    assert.equal(nextAttemptAt({ attemptsMade: 7, now: 1000, schedule: DEFAULT_RETRY_SCHEDULE_MS, random: () => 0.5 }), 1000 + 10 * H);
  });

  test('Retry-After pushes the next attempt later, never earlier, and only up to the bound', () => {
    const base = { attemptsMade: 1, now: 0, schedule: DEFAULT_RETRY_SCHEDULE_MS, random: () => 0.5 };
    assert.equal(nextAttemptAt({ ...base, retryAfterMs: 60 * S }), 60 * S);
    assert.equal(nextAttemptAt({ ...base, retryAfterMs: 1 * S }), 5 * S);
    assert.equal(nextAttemptAt({ ...base, retryAfterMs: 30 * 24 * H }), MAX_RETRY_AFTER_MS);
  });

  test('parses Retry-After as seconds or an HTTP date', () => {
    const now = Date.parse('2026-03-01T12:00:00Z');
    assert.equal(parseRetryAfter('120', now), 120 * S);
    assert.equal(parseRetryAfter(' 0 ', now), 0);
    assert.equal(parseRetryAfter('Sun, 01 Mar 2026 12:05:00 GMT', now), 5 * MIN);
    assert.equal(parseRetryAfter('Sun, 01 Mar 2026 11:00:00 GMT', now), 0, 'a date in the past means now');
    for (const bad of [undefined, '', '-5', '1.5', 'soon', '12 34']) assert.equal(parseRetryAfter(bad, now), undefined, String(bad));
  });
});

describe('active webhook secrets', () => {
  const row = { webhook_secret: 'whsec_new', webhook_secret_previous: 'whsec_old', webhook_secret_rotated_at: 1_000_000 };

  test('the replaced secret signs beside the new one for 24 hours after the rotation', () => {
    assert.deepEqual(activeWebhookSecrets(row, 1_000_000), ['whsec_new', 'whsec_old']);
    assert.deepEqual(activeWebhookSecrets(row, 1_000_000 + WEBHOOK_SECRET_GRACE_MS - 1), ['whsec_new', 'whsec_old']);
    assert.deepEqual(activeWebhookSecrets(row, 1_000_000 + WEBHOOK_SECRET_GRACE_MS), ['whsec_new']);
  });

  test('a user never rotated has one secret', () => {
    assert.deepEqual(activeWebhookSecrets({ webhook_secret: 'whsec_a', webhook_secret_previous: null, webhook_secret_rotated_at: null }, 5), ['whsec_a']);
    assert.deepEqual(activeWebhookSecrets({ webhook_secret: 'whsec_a' }, 5), ['whsec_a']);
  });
});
