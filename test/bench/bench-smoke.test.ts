/**
 * Benchmarks that cannot rot (issue 35): every bench/*.ts has a smoke entry (test/support/bench-smoke.ts),
 * and the embedded ones run here with `--smoke`, one after the other, each as a child process on the
 * same Node: exit code 0 and their rows printed. Timing is never asserted. The benches on both stores
 * run in bench-smoke-stores.test.ts and the scale-out scenarios in bench-smoke-scaleout.test.ts, so
 * that `--test-concurrency` spreads them.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { BENCH_SMOKES, benchFiles, postgresForBenches, runSmoke, SMOKE_TIMEOUT_MS, smokeFor } from '../support/bench-smoke.ts';

test('every bench/*.ts has a smoke entry, and every entry a bench', () => {
  assert.deepEqual(BENCH_SMOKES.map((s) => s.bench).sort(), benchFiles());
});

const postgres = await postgresForBenches();

describe('benchmarks run with --smoke (embedded)', { concurrency: 1 }, () => {
  for (const bench of ['output-validator', 'google-inline-images', 'json-body', 'hostile-input', 'chat', 'agent']) {
    test(`bench/${bench}.ts --smoke completes and prints its rows`, { timeout: SMOKE_TIMEOUT_MS }, (t) => runSmoke(smokeFor(bench), postgres, t.signal));
  }
});
