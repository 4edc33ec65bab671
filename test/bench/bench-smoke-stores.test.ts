/**
 * The benches that measure SQLite and, when it is reachable, PostgreSQL, with `--smoke` (see
 * bench-smoke.test.ts): their PostgreSQL rows are required when it is there; without it they are
 * skipped with a message, or fail under SWITCHBOARD_REQUIRE_SERVICES=1 (test/support/services.ts).
 */
import { describe, test } from 'node:test';
import { postgresForBenches, runSmoke, SMOKE_TIMEOUT_MS, smokeFor } from '../support/bench-smoke.ts';

const postgres = await postgresForBenches();

describe('benchmarks run with --smoke (SQLite and PostgreSQL)', { concurrency: 1 }, () => {
  for (const bench of ['foundation', 'generation', 'stats']) {
    test(`bench/${bench}.ts --smoke completes and prints its rows`, { timeout: SMOKE_TIMEOUT_MS }, (t) => runSmoke(smokeFor(bench), postgres, t.signal));
  }
});
