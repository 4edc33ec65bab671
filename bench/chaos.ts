/**
 * bench/chaos (issue 17): the scenario of test/chaos (2 API and 2 worker processes on PostgreSQL and
 * a Redis of its own, failing upstreams, five faults in sequence) under heavier load, timed:
 *  A. recovery after each fault: from the fault's end to the first successful create, to every API
 *     process answering /readyz 200, and to the first task created after it finishing;
 *  B. creates per phase: throughput (2xx answers/s), latency p50 / p99, 5xx and unanswered posts, and
 *     the share of /readyz probes (every 200 ms) that found every API process ready;
 *  C. the Redis outage against normal running (the warm-up), as ratios;
 *  D. the chaos test's verdicts on this run (findings per check).
 *
 *   node bench/chaos.ts [--loops 6] [--outage 10] [--warmup 10] [--smoke]
 *
 * `--smoke`: one create loop, a warm-up, settle time and Redis outage of 1 s each; the same faults
 * and checks (their findings are printed, not judged).
 */
import { checkAllEnded, checkChatStreams, checkFaults, checkLedger, checkNo5xxAfterCommit, checkProcessesUp, checkRefunds, checkWebhooks, report } from '../test/support/chaos/checks.ts';
import type { CreateRecord } from '../test/support/chaos/load.ts';
import { type ChaosProfile, type ChaosRun, runChaosScenario, TEST_PROFILE } from '../test/support/chaos/scenario.ts';
import { SMOKE } from './support/smoke.ts';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};

const profile: ChaosProfile = {
  ...TEST_PROFILE,
  createLoops: arg('loops', SMOKE ? 1 : 6),
  createPauseMs: 0,
  warmupMs: arg('warmup', SMOKE ? 1 : 10) * 1000,
  settleMs: SMOKE ? 1_000 : 8_000,
  redisOutageMs: arg('outage', SMOKE ? 1 : 10) * 1000,
  quiesceTimeoutMs: 120_000,
};

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

const ms = (v: number | undefined) => (v === undefined || Number.isNaN(v) ? 'n/a' : `${Math.round(v)} ms`);
const is2xx = (c: CreateRecord) => typeof c.outcome === 'number' && c.outcome >= 200 && c.outcome < 300;

function table(rows: Array<Record<string, string | number>>): void {
  const first = rows[0];
  if (!first) return;
  const keys = Object.keys(first);
  console.log(`| ${keys.join(' | ')} |`);
  console.log(`|${keys.map(() => '---').join('|')}|`);
  for (const row of rows) console.log(`| ${keys.map((k) => String(row[k] ?? '')).join(' | ')} |`);
  console.log('');
}

interface Window {
  phase: string;
  from: number;
  to: number;
}

interface WindowFigures {
  seconds: number;
  posts: number;
  okPerSecond: number;
  p50: number;
  p99: number;
  fivexx: number;
  unanswered: number;
  readyShare: number;
}

function figures(run: ChaosRun, w: Window): WindowFigures {
  const started = run.load.creates.filter((c) => c.startedAt >= w.from && c.startedAt < w.to);
  const answered = started.filter((c) => typeof c.outcome === 'number');
  const okEnded = run.load.creates.filter((c) => is2xx(c) && c.endedAt >= w.from && c.endedAt < w.to);
  const rounds = run.readiness.rounds.filter((r) => r.at >= w.from && r.at < w.to);
  const seconds = (w.to - w.from) / 1000;
  return {
    seconds,
    posts: started.length,
    okPerSecond: okEnded.length / seconds,
    p50: percentile(answered.map((c) => c.endedAt - c.startedAt), 50),
    p99: percentile(answered.map((c) => c.endedAt - c.startedAt), 99),
    fivexx: started.filter((c) => typeof c.outcome === 'number' && c.outcome >= 500).length,
    unanswered: started.length - answered.length,
    readyShare: rounds.length === 0 ? Number.NaN : rounds.filter((r) => Object.values(r.statuses).every((s) => s === 200)).length / rounds.length,
  };
}

console.log(`# bench/chaos: ${profile.createLoops} create loops without pause, Redis outage ${profile.redisOutageMs / 1000} s, warm-up ${profile.warmupMs / 1000} s`);
const run = await runChaosScenario(profile, (line) => console.log(`# ${line}`));
try {
  console.log('\n## A. Recovery after each fault (from the moment its cause was gone)\n');
  table(
    run.faults.map((f) => {
      const firstOk = run.load.creates.filter((c) => is2xx(c) && c.startedAt >= f.restoredAt).sort((a, b) => a.endedAt - b.endedAt)[0];
      const firstFinished = run.store.tasks
        .filter((t) => t.status === 'finished' && t.createdAt >= f.restoredAt && t.finishedAt !== null)
        .map((t) => (t.finishedAt ?? 0) - f.restoredAt)
        .sort((a, b) => a - b)[0];
      return {
        fault: f.name,
        'fault lasted': ms(f.restoredAt - f.injectedAt),
        'first 2xx create': ms(firstOk ? firstOk.endedAt - f.restoredAt : undefined),
        'all /readyz 200': ms(f.readyAt === undefined ? undefined : f.readyAt - f.restoredAt),
        'first new task finished': ms(firstFinished),
        evidence: f.evidence,
      };
    }),
  );

  const windows: Window[] = run.phases
    .map((p, i) => ({ phase: p.name, from: p.at, to: run.phases[i + 1]?.at ?? run.loadStoppedAt }))
    .filter((w) => w.from < run.loadStoppedAt && w.phase !== 'quiesce' && w.phase !== 'checks')
    .map((w) => ({ ...w, to: Math.min(w.to, run.loadStoppedAt) }));
  console.log('## B. Creates per phase\n');
  table(
    windows.map((w) => {
      const f = figures(run, w);
      return {
        phase: w.phase,
        seconds: f.seconds.toFixed(1),
        posts: f.posts,
        '2xx/s': f.okPerSecond.toFixed(1),
        p50: ms(f.p50),
        p99: ms(f.p99),
        '5xx': f.fivexx,
        unanswered: f.unanswered,
        'readyz all 200': Number.isNaN(f.readyShare) ? 'n/a' : `${Math.round(f.readyShare * 100)} %`,
      };
    }),
  );

  // What each 5xx said, by phase: a 503 while the database was cut is expected; anything else is a lead.
  const fivexx = new Map<string, number>();
  for (const w of windows) {
    for (const c of run.load.creates) {
      if (c.startedAt < w.from || c.startedAt >= w.to || typeof c.outcome !== 'number' || c.outcome < 500) continue;
      const key = `${w.phase} | ${c.outcome} | ${c.detail ?? ''}`;
      fivexx.set(key, (fivexx.get(key) ?? 0) + 1);
    }
  }
  if (fivexx.size > 0) {
    console.log('5xx answers by phase (nothing was charged for any: see check D):\n');
    table([...fivexx].map(([key, count]) => {
      const [phase, status, detail] = key.split(' | ');
      return { phase: phase ?? '', status: status ?? '', detail: detail ?? '', count };
    }));
  }

  const normal = windows.find((w) => w.phase === 'warm-up');
  const outage = windows.find((w) => w.phase === 'redis-outage');
  if (normal && outage) {
    // The first second of the warm-up is the fleet's own warm-up (connections, JIT): left out.
    const n = figures(run, { ...normal, from: normal.from + 1000 });
    const o = figures(run, outage);
    console.log('## C. Creates during the Redis outage against normal running\n');
    table([
      { measure: 'throughput (2xx/s)', normal: n.okPerSecond.toFixed(1), 'Redis down': o.okPerSecond.toFixed(1), ratio: (o.okPerSecond / n.okPerSecond).toFixed(2) },
      { measure: 'latency p50', normal: ms(n.p50), 'Redis down': ms(o.p50), ratio: (o.p50 / n.p50).toFixed(2) },
      { measure: 'latency p99', normal: ms(n.p99), 'Redis down': ms(o.p99), ratio: (o.p99 / n.p99).toFixed(2) },
      { measure: '5xx answers', normal: n.fivexx, 'Redis down': o.fivexx, ratio: '' },
      { measure: 'readyz: probes with every API ready', normal: `${Math.round(n.readyShare * 100)} %`, 'Redis down': `${Math.round(o.readyShare * 100)} %`, ratio: '' },
    ]);
  }

  console.log('## D. The chaos test\'s checks on this run\n');
  const checks: Array<[string, (r: ChaosRun) => string[]]> = [
    ['faults happened as planned', checkFaults],
    ['processes still up, /readyz 200 after recovery', checkProcessesUp],
    ['every task and run ended', checkAllEnded],
    ['failed tasks refunded once', checkRefunds],
    ['no 5xx after a commit', checkNo5xxAfterCommit],
    ['no webhook lost or accepted twice', checkWebhooks],
    ['ledger verify clean', checkLedger],
    ['chat streams end cleanly, no hold left', checkChatStreams],
  ];
  const verdicts = checks.map(([name, check]) => [name, check(run)] as const);
  table(verdicts.map(([name, problems]) => ({ check: name, findings: problems.length })));
  for (const [name, problems] of verdicts) if (problems.length > 0) console.log(`${report(name, problems, 8)}\n`);
  const c = run.load.creates;
  console.log(
    `${c.length} create posts (${c.filter(is2xx).length} 2xx), ${run.store.tasks.length} tasks, ${run.load.chats.length} chat streams, ${run.load.agents.length} agent messages; quiet ${((run.quiescedAt - run.loadStoppedAt) / 1000).toFixed(1)} s after the load stopped`,
  );
} finally {
  await run.dispose();
}
