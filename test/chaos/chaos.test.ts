/**
 * The chaos test (issue 17): 2 API and 2 worker processes on PostgreSQL and the test's own Redis, fake
 * upstreams that fail, hang and call back late, a webhook receiver that fails first attempts, and
 * media creates (Idempotency-Key duplicates raced across both API processes), chat streams and agent
 * runs throughout, while it SIGKILLs an API process and a worker, kills and restarts Redis, terminates
 * every database connection of the fleet, and SIGSTOPs a worker past its lease. Then each property is
 * its own test, so a report names every one that broke (test/support/chaos/checks.ts says how each is
 * judged). The scenario runs once, in `before`: about 75 s alone here, 80 to 95 s beside other test
 * files. CHAOS_VERBOSE=1 prints its progress; bench/chaos.ts times the same scenario.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  checkAllEnded,
  checkChatStreams,
  checkFaults,
  checkLedger,
  checkNo5xxAfterCommit,
  checkProcessesUp,
  checkRefunds,
  checkWebhooks,
  report,
} from '../support/chaos/checks.ts';
import { redisServerMissing } from '../support/chaos/redis-server.ts';
import { type ChaosRun, runChaosScenario, TEST_PROFILE } from '../support/chaos/scenario.ts';
import { REQUIRE_SERVICES, serviceSkipReason, TEST_DATABASE_URL } from '../support/services.ts';

const missingRedis = redisServerMissing();
if (missingRedis && REQUIRE_SERVICES) throw new Error(`${missingRedis} and SWITCHBOARD_REQUIRE_SERVICES=1`);
const skip = (await serviceSkipReason('PostgreSQL', TEST_DATABASE_URL)) ?? missingRedis;

describe('chaos: the fleet holds under process kills, a Redis restart and dropped database connections [scaleout]', { skip }, () => {
  let run: ChaosRun | undefined;
  const verbose = process.env.CHAOS_VERBOSE === '1';

  before(
    async () => {
      run = await runChaosScenario(TEST_PROFILE, verbose ? (line) => console.log(`# chaos: ${line}`) : undefined);
    },
    { timeout: 240_000 },
  );
  after(async () => {
    await run?.dispose();
  });

  const judged = (name: string, check: (r: ChaosRun) => string[], withSummary = false) =>
    test(name, (t) => {
      assert.ok(run, 'the scenario ran');
      if (withSummary) {
        const c = run.load.creates;
        t.diagnostic(`${c.length} create posts (${c.filter((x) => x.outcome === 200).length} answered 200), ${run.store.tasks.length} tasks, ${run.load.chats.length} chat streams, ${run.load.agents.length} agent messages, ${run.receiver.received.length} webhook attempts received`);
      }
      const problems = check(run);
      if (problems.length > 0) assert.fail(report(name, problems));
    });

  judged('the faults happened as planned, under load', checkFaults, true);
  judged('the processes are still up, and the API answers /healthz and /readyz 200 after recovery', checkProcessesUp);
  judged('every task and run ended, and none that was accepted is lost', checkAllEnded);
  judged('each failed task was refunded exactly once, and every task debited once', checkRefunds);
  judged('no 5xx came after a commit', checkNo5xxAfterCommit);
  judged('no webhook was lost or accepted twice', checkWebhooks);
  judged('ledger verify is clean', checkLedger);
  judged('chat streams end with [DONE] or an error event, and leave no hold behind', checkChatStreams);
});
