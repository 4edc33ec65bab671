import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BackoffLimiter } from '../../../src/services/auth/backoff-limiter.ts';

test('a few failures are free, then each wait doubles up to the cap, and the count is forgotten later', () => {
  const limiter = new BackoffLimiter({ free: 3, baseMs: 1_000, maxMs: 8_000, forgetMs: 60_000 });
  let now = 1_000_000;
  for (let i = 0; i < 3; i++) {
    assert.equal(limiter.retryAfter('k', now), 0);
    limiter.recordFailure('k', now);
  }
  assert.equal(limiter.retryAfter('k', now), 1, 'after the free ones: 1 s');
  now += 1_000;
  limiter.recordFailure('k', now);
  assert.equal(limiter.retryAfter('k', now), 2);
  now += 2_000;
  limiter.recordFailure('k', now);
  assert.equal(limiter.retryAfter('k', now), 4);
  for (let i = 0; i < 5; i++) limiter.recordFailure('k', now);
  assert.equal(limiter.retryAfter('k', now), 8, 'capped');
  assert.equal(limiter.retryAfter('other', now), 0, 'another key is untouched');
  assert.equal(limiter.retryAfter('k', now + 61_000), 0, 'forgotten an hour (here a minute) after the last failure');
  limiter.recordFailure('k', now + 61_000);
  assert.equal(limiter.retryAfter('k', now + 61_000), 0, 'counting starts again');
});
