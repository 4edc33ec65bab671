import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatMicroUsd, formatUsd, formatUsdFromCents } from '../../../web/src/format.ts';

// Issue 21, item 8: cents in lists, buttons and notices; the exact micro-amount only in detail views.
test('lists and buttons show cents, rounded to the nearest cent', () => {
  assert.equal(`Pay ${formatUsd(5_998_363)}`, 'Pay $6.00');
  assert.equal(formatUsd('2000000'), '$2.00');
  assert.equal(formatUsd(0), '$0.00');
  assert.equal(formatUsd(-1_234_567), '-$1.23');
  assert.equal(formatUsdFromCents(10.1), '$0.10');
  assert.equal(formatUsdFromCents(2_500), '$25.00');
});

test('a non-zero amount under half a cent never reads as nothing', () => {
  assert.equal(formatUsd(35), '< $0.01');
  assert.equal(formatUsd(4_999), '< $0.01');
  assert.equal(formatUsd(-35), '> -$0.01');
  assert.equal(formatUsd(5_000), '$0.01');
});

test('detail views keep the exact amount', () => {
  assert.equal(formatMicroUsd(5_998_363), '$5.998363');
  assert.equal(formatMicroUsd('70350'), '$0.07035');
});
