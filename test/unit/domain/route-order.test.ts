import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RouteTarget } from '../../../src/config/config.types.ts';
import { orderRoutes } from '../../../src/domain/routing/route-order.ts';

/** A seeded deterministic random in [0, 1) (mulberry32): the same draws on every run. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const never = (): number => {
  throw new Error('a list without shared priorities draws nothing');
};

test('a plain ordered list is returned as it is: the same array, nothing drawn', () => {
  const plain: RouteTarget[] = [
    { provider: 'a', model: 'm' },
    { provider: 'b', model: 'm' },
    { provider: 'c', model: 'm' },
  ];
  assert.equal(orderRoutes(plain, never), plain);
  assert.deepEqual(plain.map((r) => r.provider), ['a', 'b', 'c']);
  const explicit = [
    { provider: 'a', model: 'm', priority: 0, weight: 5 },
    { provider: 'b', model: 'm', priority: 3 },
  ];
  assert.equal(orderRoutes(explicit, never), explicit);
  const empty: RouteTarget[] = [];
  assert.equal(orderRoutes(empty, never), empty);
});

test('priorities are strict: every entry of a lower priority comes before any of a higher one', () => {
  const targets = [
    { provider: 'late', priority: 2, weight: 1000 },
    { provider: 'a', priority: 0 },
    { provider: 'mid', priority: 1, weight: 1000 },
    { provider: 'b', priority: 0, weight: 2 },
  ];
  const random = seeded(7);
  for (let i = 0; i < 200; i++) {
    const order = orderRoutes(targets, random).map((r) => r.provider);
    assert.deepEqual(order.slice(2), ['mid', 'late']);
    assert.deepEqual([...order.slice(0, 2)].sort(), ['a', 'b']);
  }
  assert.deepEqual(targets.map((r) => r.provider), ['late', 'a', 'mid', 'b'], 'the configured list is not reordered');
});

test('an entry without a priority has its position as its priority', () => {
  // Positions 0 and 1; the third entry names priority 0, so it shares the first place with `a`.
  const targets = [{ provider: 'a' }, { provider: 'b' }, { provider: 'c', priority: 0 }];
  const order = orderRoutes(targets, seeded(1)).map((r) => r.provider);
  assert.equal(order[2], 'b');
  assert.deepEqual([...order.slice(0, 2)].sort(), ['a', 'c']);
});

test('weights 3:1 within one priority give about 75% of first picks, and both entries are always tried', () => {
  const targets = [
    { provider: 'heavy', priority: 0, weight: 3 },
    { provider: 'light', priority: 0, weight: 1 },
    { provider: 'reserve', priority: 1 },
  ];
  const random = seeded(32);
  const draws = 4_000;
  let heavy = 0;
  for (let i = 0; i < draws; i++) {
    const order = orderRoutes(targets, random);
    assert.equal(order.length, 3);
    assert.equal(order[2]?.provider, 'reserve');
    if (order[0]?.provider === 'heavy') heavy++;
  }
  // Expected 3000, one standard deviation about 27; the seed makes it the same every run.
  assert.ok(Math.abs(heavy - 3_000) < 150, `heavy first ${heavy} of ${draws}`);
});

test('equal weights split first picks evenly, fractional weights are honoured', () => {
  const random = seeded(99);
  const counts = new Map<string, number>();
  const targets = [
    { provider: 'x', priority: 4, weight: 0.5 },
    { provider: 'y', priority: 4, weight: 0.5 },
    { provider: 'z', priority: 4, weight: 1 },
  ];
  for (let i = 0; i < 4_000; i++) {
    const first = orderRoutes(targets, random)[0]?.provider ?? '';
    counts.set(first, (counts.get(first) ?? 0) + 1);
  }
  // Shares 1/4, 1/4, 1/2.
  assert.ok(Math.abs((counts.get('x') ?? 0) - 1_000) < 150, JSON.stringify([...counts]));
  assert.ok(Math.abs((counts.get('y') ?? 0) - 1_000) < 150, JSON.stringify([...counts]));
  assert.ok(Math.abs((counts.get('z') ?? 0) - 2_000) < 150, JSON.stringify([...counts]));
});
