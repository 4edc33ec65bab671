import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isAppError } from '../../../src/domain/errors.ts';
import { checkGroupName, GroupPriceSnapshot, groupPriceMicro, LIST_PPM, multiplierText, parseMultiplier } from '../../../src/domain/pricing/customer-groups.ts';
import { groupUsd } from '../../../src/domain/pricing/group-listing.ts';

test('a group price is the list amount times the multiplier, rounded up once to the micro-USD', () => {
  assert.equal(groupPriceMicro(10_000, 1_250_000), 12_500);
  assert.equal(groupPriceMicro(490_000, 1_234_567), 604_938, '604,937.83 rounds up');
  assert.equal(groupPriceMicro(1, 1_000_001), 2, 'any fraction of a micro-USD rounds up');
  assert.equal(groupPriceMicro(3, 800_000), 3, '2.4 rounds up to 3');
  assert.equal(groupPriceMicro(0, 2_000_000), 0);
  assert.equal(groupPriceMicro(123_456_789, LIST_PPM), 123_456_789, 'the list price is unchanged');
  // Exact for amounts whose product passes 2^53.
  assert.equal(groupPriceMicro(9_000_000_000_000, 9_999_999), 89_999_991_000_000);
});

test('rounding is monotonic: a hold at the group price is never below the settlement of a smaller list amount', () => {
  for (const ppm of [10_000, 333_333, 999_999, 1_234_567, 9_999_999]) {
    let previous = 0;
    for (let list = 0; list < 2_000; list++) {
      const price = groupPriceMicro(list, ppm);
      assert.ok(price >= previous, `${list} at ${ppm}`);
      assert.ok(price * LIST_PPM >= list * ppm && (price - 1) * LIST_PPM < list * ppm, `ceil at ${list}×${ppm}`);
      previous = price;
    }
  }
});

test('multipliers: decimals with at most 6 places, between 0.01 and 10; anything else is a 400 naming the field', () => {
  assert.equal(parseMultiplier(1.25, 'multiplier'), 1_250_000);
  assert.equal(parseMultiplier('0.8', 'multiplier'), 800_000);
  assert.equal(parseMultiplier(10, 'multiplier'), 10_000_000);
  assert.equal(parseMultiplier('0.01', 'multiplier'), 10_000);
  assert.equal(parseMultiplier(1.234567, 'm'), 1_234_567);
  for (const bad of [0, -1, -0.5, '0', 0.009, 10.000001, 1000, '1e3', 1e-7, 1.2345678, 'abc', '', null, true, Number.NaN, Number.POSITIVE_INFINITY, [1], {}]) {
    assert.throws(
      () => parseMultiplier(bad, 'models.x'),
      (error: unknown) => isAppError(error) && error.code === 'invalid_input' && error.param === 'models.x',
      JSON.stringify(bad),
    );
  }
  assert.equal(multiplierText(1_250_000), '1.25');
  assert.equal(multiplierText(1_000_000), '1');
  assert.equal(multiplierText(10_000), '0.01');
});

test('group names: lower-case slugs; default is reserved', () => {
  checkGroupName('vip', 'name');
  checkGroupName('partner-eu_2', 'name');
  for (const bad of ['default', 'VIP', '', '-x', 'a b', 'x'.repeat(41)]) assert.throws(() => checkGroupName(bad, 'name'), (e: unknown) => isAppError(e) && e.code === 'invalid_input');
});

test('the snapshot: a per-model multiplier beats the group one; an account in no group pays the list price', () => {
  const snapshot = new GroupPriceSnapshot(3, [{ name: 'vip', description: null, multiplierPpm: 1_250_000, models: { 'gpt-x': 2_000_000 }, version: 1, members: 1, updatedAt: 0, updatedBy: 'admin-token' }], new Map([['usr_vip', 'vip']]));
  assert.equal(snapshot.ppmFor('usr_vip', 'z-image'), 1_250_000);
  assert.equal(snapshot.ppmFor('usr_vip', 'gpt-x'), 2_000_000);
  assert.equal(snapshot.ppmFor('usr_other', 'gpt-x'), LIST_PPM);
  assert.equal(snapshot.groupOf('usr_vip'), 'vip');
  assert.equal(snapshot.groupOf('usr_other'), 'default');
  assert.equal(groupUsd('0.04', 1_250_000), '0.05');
  assert.equal(groupUsd('0.000001', 1_500_000), '0.000002');
});
