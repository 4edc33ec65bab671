/**
 * Rolling restarts without errors (issue 22, item 2). Scale-out: 2 API and 2 worker processes on
 * PostgreSQL and a Redis of the test's own, load through the front proxy (which, like a load balancer,
 * tries the next process when a connection is refused): media creates, chat streams, agent runs and
 * an agent event stream reader; each process in turn gets SIGTERM, drains, exits and is replaced.
 * Embedded: one process on SQLite restarted under a client that retries refused connections.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { checkAllEnded, checkLedger, checkRefunds, report } from '../support/chaos/checks.ts';
import { type EmbeddedRestartRun, runEmbeddedRestart } from '../support/chaos/embedded-restart.ts';
import { redisServerMissing } from '../support/chaos/redis-server.ts';
import { checkEventReader, checkNoFailedRequest, checkRestarts, ROLLING_PROFILE, type RollingRestart, rollingRestart } from '../support/chaos/rolling-restart.ts';
import { type ChaosRun, runChaosScenario } from '../support/chaos/scenario.ts';
import { REQUIRE_SERVICES, serviceSkipReason, TEST_DATABASE_URL } from '../support/services.ts';

const missingRedis = redisServerMissing();
if (missingRedis && REQUIRE_SERVICES) throw new Error(`${missingRedis} and SWITCHBOARD_REQUIRE_SERVICES=1`);
const skip = (await serviceSkipReason('PostgreSQL', TEST_DATABASE_URL)) ?? missingRedis;

describe('rolling restart: SIGTERM to each API and worker process in turn, under load, fails no request and loses no job [scaleout]', { skip }, () => {
  let run: ChaosRun | undefined;
  const rolling: RollingRestart = rollingRestart();
  const verbose = process.env.CHAOS_VERBOSE === '1';

  before(
    async () => {
      run = await runChaosScenario(ROLLING_PROFILE, verbose ? (line) => console.log(`# rolling: ${line}`) : undefined, { plan: rolling.plan, throughFront: true });
    },
    { timeout: 240_000 },
  );
  after(async () => {
    await run?.dispose();
  });

  const judged = (name: string, check: (r: ChaosRun) => string[]) =>
    test(name, (t) => {
      assert.ok(run, 'the scenario ran');
      t.diagnostic(`${run.load.creates.length} creates, ${run.load.chats.length} chat streams, ${run.load.agents.length} agent messages; drains ${rolling.restarts.map((r) => `${r.name} ${r.drainMs} ms`).join(', ')}`);
      const problems = check(run);
      if (problems.length > 0) assert.fail(report(name, problems));
    });

  judged('each process drained and exited by itself, and no worker left a job to its lease', (r) => checkRestarts(r, rolling.restarts));
  judged('no request failed as the client behind the front sees it', checkNoFailedRequest);
  judged('the agent event stream reader was told to reconnect and resumed without a gap or a repeat', () => checkEventReader(rolling.reader));
  judged('every task and run ended, and none that was accepted is lost', checkAllEnded);
  judged('each failed task was refunded exactly once, and every task debited once', checkRefunds);
  judged('ledger verify finds nothing', checkLedger);
});

/**
 * Embedded is one process on SQLite: its rolling restart is a restart of that process. "No failed
 * request" is what a client sees that retries a refused connection until the new process listens
 * (docs/decisions.md "Rolling restarts").
 */
describe('rolling restart, embedded: SIGTERM and a new process on the same port, under load, fails no request and loses no task', () => {
  let run: EmbeddedRestartRun | undefined;
  const verbose = process.env.CHAOS_VERBOSE === '1';

  before(
    async () => {
      run = await runEmbeddedRestart(2, verbose ? (line) => console.log(`# embedded: ${line}`) : undefined);
    },
    { timeout: 180_000 },
  );
  after(async () => {
    await run?.dispose();
  });

  const judged = (name: string, check: (r: EmbeddedRestartRun) => string[]) =>
    test(name, (t) => {
      assert.ok(run, 'the scenario ran');
      t.diagnostic(`${run.load.creates.length} creates, ${run.load.chats.length} chat streams, ${run.load.agents.length} agent messages; drains ${run.drains.map((d) => `${d.drainMs} ms`).join(', ')}`);
      const problems = check(run);
      if (problems.length > 0) assert.fail(report(name, problems));
    });

  judged('the process drained and exited by itself each time', (r) => r.drains.filter((d) => d.exitCode !== 0).map((d) => `pid ${d.pid} exited with ${d.exitCode} after ${d.drainMs} ms`));
  judged('no request failed as the retrying client sees it', (r) => checkNoFailedRequest(r));
  judged('every task ended', (r) => r.unended);
  judged('ledger verify finds nothing', (r) => r.ledgerMismatches.map((m) => `ledger verify: ${JSON.stringify(m)}`));
});
