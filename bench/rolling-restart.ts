/**
 * bench/rolling-restart (issue 22, item 2): the rolling restart of test/integration/rolling-restart
 * under heavier load. Scale-out: 2 API and 2 worker processes, load through the front proxy, each
 * process in turn gets SIGTERM, drains, exits and is replaced. Embedded: one process on SQLite
 * restarted twice on the same port behind a client that retries refused connections. For each
 * restart: the time from SIGTERM to the exit (the drain); for the run: requests sent and failed (as
 * the client sees them), and the judgements of the test.
 *
 *   node bench/rolling-restart.ts [--loops 6] [--smoke]   (--smoke: one create loop, 1 s to settle, api-0 and worker-0 restarted, one embedded restart)
 */
import { checkAllEnded, checkLedger, checkRefunds } from '../test/support/chaos/checks.ts';
import { runEmbeddedRestart } from '../test/support/chaos/embedded-restart.ts';
import type { ChaosLoad } from '../test/support/chaos/load.ts';
import { checkEventReader, checkNoFailedRequest, checkRestarts, ROLLING_PROFILE, rollingRestart } from '../test/support/chaos/rolling-restart.ts';
import { type ChaosProfile, runChaosScenario } from '../test/support/chaos/scenario.ts';
import { SMOKE } from './support/smoke.ts';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};

const profile: ChaosProfile = { ...ROLLING_PROFILE, createLoops: arg('loops', SMOKE ? 1 : 6), createPauseMs: 0, chatLoops: SMOKE ? 1 : 2, settleMs: SMOKE ? 1_000 : 6_000, quiesceTimeoutMs: 120_000 };
const sent = (load: ChaosLoad) => load.creates.length + load.chats.length + load.agents.length;

const RESTARTS = SMOKE ? 2 : 4;
const rolling = rollingRestart(RESTARTS);
const run = await runChaosScenario(profile, (line) => console.log(`# ${line}`), { plan: rolling.plan, throughFront: true });
try {
  const which = RESTARTS === 4 ? 'each process' : `the first ${RESTARTS} processes`;
  console.log(`\nscale-out (2 API + 2 workers, PostgreSQL + Redis), ${which} restarted in turn:\n`);
  console.log('| process | drain (SIGTERM → exit) | exit code | jobs left leased |');
  console.log('|---|---|---|---|');
  for (const r of rolling.restarts) console.log(`| ${r.name} | ${r.drainMs} ms | ${r.exitCode} | ${r.jobsLeftLeased} |`);
  const failed = checkNoFailedRequest(run);
  console.log(`\nrequests: ${sent(run.load)} sent (${run.load.creates.length} creates, ${run.load.chats.length} chat streams, ${run.load.agents.length} agent messages), ${failed.length} failed`);
  console.log(`event stream reader: ${rolling.reader?.connections ?? 0} connections, ${rolling.reader?.endedWithRetryHint ?? 0} ended with a retry hint, ${rolling.reader?.sequences.length ?? 0} events`);
  for (const [name, problems] of [
    ['restarts', checkRestarts(run, rolling.restarts, RESTARTS)],
    ['failed requests', failed],
    ['event reader', checkEventReader(rolling.reader)],
    ['all ended', checkAllEnded(run)],
    ['refunds', checkRefunds(run)],
    ['ledger', checkLedger(run)],
  ] as const) {
    console.log(`${name}: ${problems.length === 0 ? 'ok' : `${problems.length} finding(s)\n  ${problems.slice(0, 8).join('\n  ')}`}`);
  }
} finally {
  await run.dispose();
}

const EMBEDDED_RESTARTS = SMOKE ? 1 : 2;
const embedded = await runEmbeddedRestart(EMBEDDED_RESTARTS, (line) => console.log(`# embedded: ${line}`));
try {
  const failed = checkNoFailedRequest(embedded);
  console.log(`\nembedded (one process, SQLite), restarted ${EMBEDDED_RESTARTS === 2 ? 'twice' : 'once'} on the same port:\n`);
  console.log(`drains: ${embedded.drains.map((d) => `${d.drainMs} ms (exit ${d.exitCode})`).join(', ')}`);
  console.log(`requests: ${sent(embedded.load)} sent, ${failed.length} failed; ${embedded.unended.length} tasks not ended; ledger: ${embedded.ledgerMismatches.length} mismatches`);
} finally {
  await embedded.dispose();
}
