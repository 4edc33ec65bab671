import assert from 'node:assert/strict';
import { test } from 'node:test';
import { changeKind, periodEnd, periodStart, prorateUpgrade, StoragePlanCatalog } from '../../../src/domain/storage/storage-plans.ts';

test('periods end on the billing date, clamped to short months, never drifting', () => {
  const anchor = Date.UTC(2026, 0, 31, 13, 45, 7, 250);
  assert.equal(new Date(periodEnd(anchor, 0)).toISOString(), '2026-02-28T13:45:07.250Z');
  assert.equal(new Date(periodEnd(anchor, 1)).toISOString(), '2026-03-31T13:45:07.250Z');
  assert.equal(new Date(periodEnd(anchor, 12)).toISOString(), '2027-02-28T13:45:07.250Z');
  assert.equal(new Date(periodEnd(Date.UTC(2027, 11, 31), 1)).toISOString(), '2028-02-29T00:00:00.000Z', 'leap year');
  assert.equal(periodStart(anchor, 0), anchor);
  assert.equal(periodStart(anchor, 2), periodEnd(anchor, 1));
});

test('an upgrade costs the price difference for the time left, rounded down to the micro-USD', () => {
  const period = { start: 0, end: 30 * 86_400_000 };
  assert.equal(prorateUpgrade(2_000_000, 8_000_000, period, 0), 6_000_000);
  assert.equal(prorateUpgrade(2_000_000, 8_000_000, period, 15 * 86_400_000), 3_000_000);
  assert.equal(prorateUpgrade(2_000_000, 8_000_000, period, 10 * 86_400_000 + 1), 3_999_999);
  assert.equal(prorateUpgrade(2_000_000, 8_000_000, period, period.end), 0);
  assert.equal(prorateUpgrade(8_000_000, 2_000_000, period, 0), 0, 'a cheaper plan is no upgrade');
  assert.equal(prorateUpgrade(0, 40_000_000_000, { start: 0, end: 2_678_400_000 }, 1), 39_999_999_985, 'large figures stay exact');
});

test('the kind of change follows the current subscription', () => {
  const catalog = new StoragePlanCatalog();
  const [starter, pro] = catalog.plans;
  assert.ok(starter && pro);
  const active = { planId: pro.id, status: 'active' as const, periodStart: 0, periodEnd: 1 };
  assert.equal(changeKind(undefined, starter, catalog), 'new');
  assert.equal(changeKind({ ...active, status: 'lapsed' }, starter, catalog), 'new');
  assert.equal(changeKind({ ...active, status: 'grace' }, starter, catalog), 'reactivate');
  assert.equal(changeKind(active, pro, catalog), 'unchanged');
  assert.equal(changeKind(active, starter, catalog), 'downgrade');
  assert.equal(changeKind({ ...active, planId: starter.id }, pro, catalog), 'upgrade');
});
