/**
 * The scale-out scenarios' benches (2 API and 2 worker processes on PostgreSQL and a redis-server of
 * their own) with `--smoke` (see bench-smoke.test.ts): skipped without PostgreSQL or redis-server, as
 * test/chaos is, or failing under SWITCHBOARD_REQUIRE_SERVICES=1.
 */
import { describe, test } from 'node:test';
import { runSmoke, SMOKE_TIMEOUT_MS, smokeFor, smokeSkipReason } from '../support/bench-smoke.ts';

describe('benchmarks run with --smoke (scale-out scenarios)', { concurrency: 1 }, async () => {
  for (const bench of ['chaos', 'rolling-restart']) {
    const smoke = smokeFor(bench);
    const skip = await smokeSkipReason(smoke);
    test(`bench/${bench}.ts --smoke completes and prints its rows`, { timeout: SMOKE_TIMEOUT_MS, ...(skip ? { skip } : {}) }, (t) => runSmoke(smoke, true, t.signal));
  }
});
