import assert from 'node:assert/strict';
import { test } from 'node:test';
import { canMove, canReserve, collectable, release, reserve, settle, settleWithin } from '../../../src/domain/ledger/settlement.ts';

const account = (balanceMicro: number, heldMicro: number) => ({ balanceMicro, heldMicro });

test('a movement is allowed while the balance after it covers what is held', () => {
  assert.equal(canMove(account(100, 30), -70), true);
  assert.equal(canMove(account(100, 30), -71), false);
  assert.equal(canMove(account(0, 0), 5), true);
});

test('a hold fits when balance less held covers it, and only adds to what is held', () => {
  assert.equal(canReserve(account(100, 30), 70), true);
  assert.equal(canReserve(account(100, 30), 71), false);
  assert.deepEqual(reserve(account(100, 30), 70), account(100, 100));
});

test('a settlement collects the cost when the balance covers it once its hold is released', () => {
  assert.equal(collectable(account(100, 30), 30, 25), 25);
  // Usage above the hold, still covered by the balance.
  assert.equal(collectable(account(100, 30), 30, 90), 90);
  assert.deepEqual(settle(account(100, 30), 30, 25), account(75, 0));
});

test('a settlement above what the balance covers collects exactly that much, never below zero', () => {
  // Another request holds 50: 100 - (80 - 30) = 50 is all this one may take.
  assert.equal(collectable(account(100, 80), 30, 90), 50);
  assert.equal(collectable(account(10, 60), 30, 90), 0);
  assert.equal(collectable(account(100, 30), 30, 0), 0);
});

test('a release gives the hold back in full and charges nothing', () => {
  assert.deepEqual(release(account(100, 30), 30), account(100, 0));
});

test('a commitment within a budget settles at min(cost, hold), never negative', () => {
  assert.equal(settleWithin(30, 25), 25);
  assert.equal(settleWithin(30, 45), 30);
  assert.equal(settleWithin(30, -5), 0);
});
