import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Counter, Histogram, Registry } from 'prom-client';
import { FastCounter, FastHistogram } from '../../../src/adapters/metrics/fast-metrics.ts';

const buckets = [0.001, 0.0025, 0.005, 0.01, 0.1, 1];
const observations: Array<[Record<'method' | 'route', string>, number]> = [
  [{ method: 'POST', route: '/a' }, 0.0004],
  [{ method: 'POST', route: '/a' }, 0.001],
  [{ method: 'POST', route: '/a' }, 0.0031],
  [{ method: 'GET', route: '/b "quoted"\\' }, 0.5],
  [{ method: 'POST', route: '/a' }, 7],
  [{ method: 'GET', route: '/b "quoted"\\' }, 0.0099],
];

test('a FastHistogram is exposed exactly as a prom-client Histogram with the same observations', async () => {
  const ours = new Registry();
  const theirs = new Registry();
  const fast = new FastHistogram({ name: 'h_seconds', help: 'a histogram', labelNames: ['method', 'route'], buckets, registers: [ours] });
  const reference = new Histogram({ name: 'h_seconds', help: 'a histogram', labelNames: ['method', 'route'], buckets, registers: [theirs] });
  for (const [labels, value] of observations) {
    fast.observe(labels, value);
    reference.observe(labels, value);
  }
  assert.equal(await ours.metrics(), await theirs.metrics());
  fast.reset();
  reference.reset();
  assert.equal(await ours.metrics(), await theirs.metrics());
});

test('a FastCounter is exposed exactly as a prom-client Counter, extra labels ignored', async () => {
  const ours = new Registry();
  const theirs = new Registry();
  const fast = new FastCounter({ name: 'c_total', help: 'a counter', labelNames: ['kind', 'status'], registers: [ours] });
  const reference = new Counter({ name: 'c_total', help: 'a counter', labelNames: ['kind', 'status'], registers: [theirs] });
  for (const [labels, value] of [
    [{ kind: 'x', status: 200 }, 1],
    [{ status: 200, kind: 'x' }, 3],
    [{ kind: 'y', status: 500 }, 1],
  ] as const) {
    fast.inc(labels, value);
    reference.inc(labels, value);
  }
  assert.equal(await ours.metrics(), await theirs.metrics());
  assert.match(await ours.metrics(), /c_total\{kind="x",status="200"\} 4/);
});
