/**
 * bench/generation (issue 3):
 *  A. SQLite, one gateway process: create and status requests/s as ratios to /healthz, and the gateway
 *     process's CPU time per request of each (/proc/<pid>/stat around each load phase) as ratios to
 *     /healthz's, the floor of any request on the same process; time from create
 *     to `finished` (server-side created_at → finished_at) for an image model on a fake kie upstream that
 *     answers at once with a small file.
 *  B. PostgreSQL: the time to drain 10,000 queued tasks from a fake upstream that answers after 500 ms,
 *     with 1 and with 2 worker processes.
 *
 *   node bench/generation.ts [--duration 5] [--drain 10000] [--drain-concurrency 192] [--skip-drain] [--smoke]
 *
 * A create's CPU includes the work of the task it queues (the same process runs the worker: claim,
 * upstream calls, download, storage); a status request's is its own.
 *
 * `--smoke`: 0.5 s per endpoint, 10 tasks create → finished, a drain of 20 tasks with one worker.
 */
import { DatabaseSync } from 'node:sqlite';
import { join } from 'node:path';
import pg from 'pg';
import { startKieFake } from '../test/fakes/media/kie.fake.ts';
import { postgresReachable, startChildGateway } from './support/child-gateway.ts';
import { loadGenerator, runLoad, table } from './support/load.ts';
import { withCpu } from './support/process-cpu.ts';
import { SMOKE } from './support/smoke.ts';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const durationS = arg('duration', SMOKE ? 0.5 : 5);
const drainCount = arg('drain', SMOKE ? 20 : 10_000);
const SEQUENTIAL_TASKS = SMOKE ? 10 : 300;
const DRAIN_WORKERS = SMOKE ? [1] : [1, 2];
const skipDrain = process.argv.includes('--skip-drain');
const DRAIN_PROVIDER_CONCURRENCY = arg('drain-concurrency', 192);

const kie = await startKieFake({ record: false, callbacks: false });
kie.defaultBehaviour = { instant: true, result: { kind: 'image', count: 1 } };
const slowKie = await startKieFake({ record: false, callbacks: false });
slowKie.defaultBehaviour = { completeAfterMs: 500, result: { kind: 'image', count: 1 } };

const configFor = (url: string, pollMs: number, concurrency: number) => ({
  providers: { upstream: { type: 'kie', baseUrl: url, apiKey: kie.apiKey, concurrency, options: { pollIntervalMs: pollMs } } },
  routes: { 'z-image-turbo': [{ provider: 'upstream', model: 'z-image' }] },
  worker: { concurrency: Math.max(256, concurrency) },
});

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

const rows: Array<Record<string, string | number>> = [];
const createBody = JSON.stringify({ model: 'z-image-turbo', input: { prompt: 'bench' } });

// A. SQLite
{
  const gw = await startChildGateway({ store: 'sqlite', configFile: configFor(kie.url, 0, 128) });
  try {
    const { key } = await gw.createUser(50_000_000);
    const auth = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const post = async () => (await (await fetch(`${gw.url}/api/v1/generation/create`, { method: 'POST', headers: auth, body: createBody })).json()) as { data: { taskId: string } };

    // Create-to-finished, one task at a time, on an idle gateway.
    const ids: string[] = [];
    for (let i = 0; i < SEQUENTIAL_TASKS; i++) {
      const { data } = await post();
      ids.push(data.taskId);
      for (;;) {
        const s = (await (await fetch(`${gw.url}/api/v1/task/status/${data.taskId}`, { headers: auth })).json()) as { data: { status: string } };
        if (s.data.status === 'finished' || s.data.status === 'failed') break;
        await new Promise((r) => setTimeout(r, 1));
      }
    }
    const db = new DatabaseSync(join(gw.env.DATA_DIR ?? '', 'switchboard.db'), { readOnly: true });
    const spans = (db.prepare(`select finished_at - created_at as ms, status from tasks where id in (${ids.map(() => '?').join(',')})`).all(...ids) as Array<{ ms: number; status: string }>)
      .filter((r) => r.status === 'finished')
      .map((r) => r.ms)
      .sort((a, b) => a - b);
    db.close();

    const pid = gw.processes[0]?.pid ?? 0;
    const health = await withCpu(pid, () => runLoad({ url: `${gw.url}/healthz`, durationS }));
    const status = await withCpu(pid, () => runLoad({ url: `${gw.url}/api/v1/task/status/${ids[0]}`, headers: auth, durationS }));
    const create = await withCpu(pid, () => runLoad({ url: `${gw.url}/api/v1/generation/create`, method: 'POST', headers: auth, body: createBody, durationS }));
    // The CPU the gateway process spent per answered request of the phase; /healthz's is the floor.
    const cpuUs = (r: typeof health) => (r.cpuSeconds * 1e6) / Math.max(1, r.requestsPerSecond * durationS);
    const cpu = (r: typeof health) => ({ 'CPU µs/req': Math.round(cpuUs(r)), 'CPU vs /healthz': (cpuUs(r) / cpuUs(health)).toFixed(2) });
    rows.push({ store: 'sqlite', measure: 'GET /healthz', value: `${Math.round(health.requestsPerSecond)} req/s`, ratio: '1.00', ...cpu(health), 'p50/p99 ms': `${health.p50Ms} / ${health.p99Ms}`, errors: health.errors + health.non2xx });
    rows.push({ store: 'sqlite', measure: 'POST /generation/create', value: `${Math.round(create.requestsPerSecond)} req/s`, ratio: (create.requestsPerSecond / health.requestsPerSecond).toFixed(2), ...cpu(create), 'p50/p99 ms': `${create.p50Ms} / ${create.p99Ms}`, errors: create.errors + create.non2xx });
    rows.push({ store: 'sqlite', measure: 'GET /task/status/{id}', value: `${Math.round(status.requestsPerSecond)} req/s`, ratio: (status.requestsPerSecond / health.requestsPerSecond).toFixed(2), ...cpu(status), 'p50/p99 ms': `${status.p50Ms} / ${status.p99Ms}`, errors: status.errors + status.non2xx });
    rows.push({ store: 'sqlite', measure: `create → finished (${spans.length} tasks, instant upstream)`, value: `p50 ${percentile(spans, 50)} ms`, ratio: '', 'CPU µs/req': '', 'CPU vs /healthz': '', 'p50/p99 ms': `${percentile(spans, 50)} / ${percentile(spans, 99)}`, errors: SEQUENTIAL_TASKS - spans.length });
  } finally {
    await gw.stop();
  }
}

// B. PostgreSQL drain
const drainOnPostgres = !skipDrain && (await postgresReachable());
if (!skipDrain && !drainOnPostgres) console.log('PostgreSQL not reachable: the drain is not measured');
if (drainOnPostgres) {
  for (const workers of DRAIN_WORKERS) {
    // 192 upstream jobs followed at once per worker process (docs/decisions.md, "Worker capacity"): a
    // process's capacity is its slots over the upstream's job time, and each process adds its own.
    const gw = await startChildGateway({ store: 'postgres', configFile: configFor(slowKie.url, 500, DRAIN_PROVIDER_CONCURRENCY), role: 'api' });
    const client = new pg.Client({ connectionString: gw.env.DATABASE_URL });
    await client.connect();
    try {
      const { key } = await gw.createUser(drainCount * 2);
      const auth = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
      // Queue the tasks with no worker running (64 creates in flight at a time).
      let next = 0;
      await Promise.all(
        Array.from({ length: 64 }, async () => {
          while (next < drainCount) {
            next++;
            const res = await fetch(`${gw.url}/api/v1/generation/create`, { method: 'POST', headers: auth, body: createBody });
            if (!res.ok) throw new Error(`create failed: ${res.status} ${await res.text()}`);
            await res.arrayBuffer();
          }
        }),
      );
      const started = Date.now();
      await gw.addWorkers(workers);
      let finished = 0;
      while (finished < drainCount && Date.now() - started < 600_000) {
        await new Promise((r) => setTimeout(r, 250));
        const res = await client.query<{ n: string }>("select count(*) as n from tasks where status in ('finished', 'failed')");
        finished = Number(res.rows[0]?.n ?? 0);
      }
      const seconds = (Date.now() - started) / 1000;
      const failed = Number((await client.query<{ n: string }>("select count(*) as n from tasks where status = 'failed'")).rows[0]?.n ?? 0);
      rows.push({ store: 'postgres', measure: `drain ${drainCount} tasks, upstream 500 ms, ${workers} worker process${workers > 1 ? 'es' : ''}`, value: `${seconds.toFixed(1)} s`, ratio: `${Math.round(drainCount / seconds)} tasks/s`, 'CPU µs/req': '', 'CPU vs /healthz': '', 'p50/p99 ms': '', errors: failed });
    } finally {
      await client.end();
      await gw.stop();
    }
  }
}

await kie.close();
await slowKie.close();
console.log(`\nbench/generation (${loadGenerator}, 32 connections, ${durationS} s per endpoint; gateway and workers in child processes)\n`);
console.log(table(rows));
