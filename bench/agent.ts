/**
 * bench/agent (issues 10-11): the agent's run engine and event fan-out, in embedded mode (one gateway
 * process: SQLite, the in-process worker, the built-in `local` media provider making real images), with
 * the orchestrator a scripted OpenAI-style upstream (test/fakes/scripted-orchestrator.ts) that answers at
 * once. The gateway runs in its own process with the flags of `npm start`, plus a preload that collects
 * garbage and reports its memory on SIGUSR2 (bench/support/memory-probe.ts); the SSE readers run in a
 * third process (bench/support/sse-reader-process.ts), so parsing a thousand streams shares neither
 * the gateway's nor the driver's event loop.
 *
 *  0. Baseline: GET /healthz one at a time (p50, p99), at the start and at the end of the run.
 *  B. Event fan-out: one reader on a conversation while three runs emit (the baseline), then 1,000
 *     readers on another: delivery delay from each event's createdAt to its arrival at each reader
 *     (p50, p99, max; target p99 ≤ 50 ms), and memory per idle reader: the gateway's resident memory
 *     after a full collection with the readers open minus before, / readers (target ≤ 50 KB), and
 *     the same for the JS heap in use.
 *  C. Ten concurrent 25 MiB uploads to the gateway's own upload URL: resident growth (target < 64 MiB).
 *  A. The engine's own time per step (p50, p99; target p99 ≤ 10 ms on SQLite), runs of one image then
 *     a text answer: (1) one run at a time, (2) 100 runs at once to completion (wall time, runs/s, all
 *     completed). Two measures of the same thing:
 *     - inside: the histogram switchboard_agent_engine_seconds (a job step's wall time minus its wait
 *       for the orchestrator model), differenced around the phase, p50/p99 interpolated linearly within
 *       its buckets;
 *     - outside: from GET /agent/runs/{id} and GET /generation/{id}: the run's createdAt → finishedAt
 *       minus its model steps (startedAt → finishedAt) minus its generation task (createdAt →
 *       finishedAt), divided by the engine steps per run (the histogram's count / runs). Millisecond
 *       timestamps; it also holds the waits between steps (a job's wake-up and claim), which the
 *       histogram does not.
 *  Then `ledger verify` (the CLI, on the same DATA_DIR) must find the books balanced.
 *  L. The peer: LangGraph JS (bench/agent/langgraph-peer.ts, its own process) doing the same run (a
 *     model call answered by the same orchestrator, a `generate_image` tool node rendering with the
 *     local provider's renderer, a model call answering in text), with MemorySaver and with
 *     PostgresSaver (a throwaway schema on the local PostgreSQL, when reachable): its own time per
 *     step, one run at a time and `--runs` at once, and the engine's p50 / p99 as ratios to it.
 *
 *   node bench/agent.ts [--runs 100] [--readers 1000] [--uploads 10] [--sequential 30] [--smoke]
 *
 * `--smoke` (test/bench/bench-smoke.test.ts) runs every phase with tiny counts (3 runs, 5 readers, one
 * 1 MiB upload) in seconds: it checks that the bench completes and prints its rows, not its figures.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ScriptedOrchestrator } from '../test/fakes/scripted-orchestrator.ts';
import { runLangGraphPeer } from './agent/run-peer.ts';
import { BENCH_DATABASE_URL, postgresReachable, startChildGateway } from './support/child-gateway.ts';
import { table } from './support/load.ts';
import { startSseReaders } from './support/sse-readers.ts';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const SMOKE = process.argv.includes('--smoke');
const RUNS = arg('runs', SMOKE ? 3 : 100);
const READERS = arg('readers', SMOKE ? 5 : 1000);
const UPLOADS = arg('uploads', SMOKE ? 1 : 10);
const SEQUENTIAL = arg('sequential', SMOKE ? 3 : 30);
const UPLOAD_BYTES = (SMOKE ? 1 : 25) * 1024 * 1024;
/** How long the gateway is given to collect and report its memory (SIGUSR2), and the /healthz samples. */
const SETTLE_MS = SMOKE ? 300 : 1_500;
const HEALTH_SAMPLES = SMOKE ? 20 : 300;
const IMAGE_MODEL = 'z-image-turbo';
const benchStarted = performance.now();

const memoryFile = join(tmpdir(), `sb-bench-agent-memory-${process.pid}.json`);
const orchestrator = await ScriptedOrchestrator.start('openai');
const gw = await startChildGateway({
  store: 'sqlite',
  env: { NODE_OPTIONS: `--expose-gc --import=${join(import.meta.dirname, 'support/memory-probe.ts')}`, BENCH_MEMORY_FILE: memoryFile },
  configFile: {
    providers: { orch: orchestrator.provider() },
    routes: { 'gpt-5.4-mini': ['orch'] },
    worker: { concurrency: 64 },
    // One user holds every reader: the per-user cap of event streams (20 by default) would refuse
    // all but 20 of them with 429, as it did unseen until issue 35.
    limits: { eventStreamsPerUser: Math.min(10_000, Math.max(20, READERS + 10)) },
  },
});
const pid = gw.processes[0]?.pid ?? 0;
const user = await gw.createUser(1_000_000);
const auth = { authorization: `Bearer ${user.key}`, 'content-type': 'application/json' };

async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(gw.url + path, { method, headers: auth, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
  return (JSON.parse(text) as { data: T }).data;
}

const conversation = async (title: string) => (await api<{ conversationId: string }>('POST', '/api/v1/agent/conversations', { title })).conversationId;
const send = async (conversationId: string, text: string) => (await api<{ runId: string }>('POST', `/api/v1/agent/conversations/${conversationId}/messages`, { content: [{ type: 'text', text }] })).runId;
const lastSequence = async (conversationId: string) => (await api<{ lastSequence: number }>('GET', `/api/v1/agent/conversations/${conversationId}/event-history?limit=1`)).lastSequence;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A run of one image (the local provider renders it) and then a text answer. */
const planImage = (id: string) => orchestrator.plan(id, { toolCalls: [{ name: 'generate_image', arguments: { prompt: 'a lighthouse', model: IMAGE_MODEL } }] }, { text: 'Done.' });

const TERMINAL = ['completed', 'failed', 'cancelled'];

/** Polls the runs not yet ended (one request at a time, so the poller adds little to the load). */
async function waitAll(runIds: string[], timeoutMs: number): Promise<Map<string, string>> {
  const done = new Map<string, string>();
  const deadline = Date.now() + timeoutMs;
  while (done.size < runIds.length && Date.now() < deadline) {
    for (const id of runIds) {
      if (done.has(id)) continue;
      const run = await api<{ status: string }>('GET', `/api/v1/agent/runs/${id}`);
      if (TERMINAL.includes(run.status)) done.set(id, run.status);
    }
    if (done.size < runIds.length) await sleep(100);
  }
  return done;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN;
}

function rssKb(): number {
  return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? Number.NaN);
}

/** CPU seconds (user + system) a process has used. */
function cpuSeconds(processId: number): number {
  const fields = readFileSync(`/proc/${processId}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** The gateway's memory after a full garbage collection (SIGUSR2 → memory-probe), settled for `ms`. */
async function settledMemory(ms = SETTLE_MS): Promise<{ rssKb: number; heapUsedKb: number; externalKb: number }> {
  rmSync(memoryFile, { force: true });
  process.kill(pid, 'SIGUSR2');
  await sleep(ms);
  // A busy machine can delay the report past `ms`: wait for it, up to 15 s more.
  for (const deadline = Date.now() + 15_000; !existsSync(memoryFile) && Date.now() < deadline; ) await sleep(50);
  if (!existsSync(memoryFile)) throw new Error('the gateway did not report its memory (memory-probe preload)');
  const usage = JSON.parse(readFileSync(memoryFile, 'utf8')) as { heapUsed: number; external: number; arrayBuffers: number };
  return { rssKb: rssKb(), heapUsedKb: usage.heapUsed / 1024, externalKb: usage.external / 1024 };
}

async function healthLatency(count: number): Promise<{ p50: number; p99: number; mean: number }> {
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const t = performance.now();
    await fetch(`${gw.url}/healthz`).then((r) => r.arrayBuffer());
    times.push(performance.now() - t);
  }
  return { p50: percentile(times, 50), p99: percentile(times, 99), mean: times.reduce((a, b) => a + b, 0) / times.length };
}

interface Histogram {
  buckets: Array<[number, number]>;
  count: number;
  sum: number;
}

/** switchboard_agent_engine_seconds summed over its labels, from /metrics (served to loopback clients). */
async function engineHistogram(): Promise<Histogram> {
  const res = await fetch(`${gw.url}/metrics`);
  if (!res.ok) throw new Error(`/metrics: ${res.status}`);
  const byBound = new Map<number, number>();
  let count = 0;
  let sum = 0;
  for (const line of (await res.text()).split('\n')) {
    const bucket = /^switchboard_agent_engine_seconds_bucket\{([^}]*)\} (\S+)$/.exec(line);
    if (bucket?.[1] && bucket[2]) {
      const le = /le="([^"]+)"/.exec(bucket[1])?.[1] ?? '+Inf';
      const bound = le === '+Inf' ? Number.POSITIVE_INFINITY : Number(le);
      byBound.set(bound, (byBound.get(bound) ?? 0) + Number(bucket[2]));
    }
    const c = /^switchboard_agent_engine_seconds_count(?:\{[^}]*\})? (\S+)$/.exec(line);
    if (c?.[1]) count += Number(c[1]);
    const s = /^switchboard_agent_engine_seconds_sum(?:\{[^}]*\})? (\S+)$/.exec(line);
    if (s?.[1]) sum += Number(s[1]);
  }
  return { buckets: [...byBound.entries()].sort((a, b) => a[0] - b[0]), count, sum };
}

function minus(after: Histogram, before: Histogram): Histogram {
  const earlier = new Map(before.buckets);
  return { buckets: after.buckets.map(([bound, count]) => [bound, count - (earlier.get(bound) ?? 0)]), count: after.count - before.count, sum: after.sum - before.sum };
}

/** p-th percentile (seconds) from cumulative buckets, linear within the bucket that holds the rank. */
function histogramPercentile(buckets: Array<[number, number]>, p: number): number {
  const total = buckets.at(-1)?.[1] ?? 0;
  const rank = (p / 100) * total;
  let lower = 0;
  let below = 0;
  for (const [bound, count] of buckets) {
    if (count >= rank) {
      const inBucket = count - below;
      const upper = Number.isFinite(bound) ? bound : lower;
      return inBucket === 0 ? upper : lower + ((rank - below) / inBucket) * (upper - lower);
    }
    lower = Number.isFinite(bound) ? bound : lower;
    below = count;
  }
  return lower;
}

interface RunTimes {
  status: string;
  createdMs: number;
  finishedMs: number;
  modelMs: number;
  mediaMs: number;
}

const ms = (iso: unknown) => (typeof iso === 'string' ? Date.parse(iso) : Number.NaN);

/** A run's timeline from the outside: its wall time, its model steps and its generation tasks. */
async function runTimes(runId: string): Promise<RunTimes> {
  const run = await api<{
    status: string;
    createdAt: string;
    finishedAt: string | null;
    steps: Array<{ kind: string; startedAt: string | null; finishedAt: string | null }>;
    costs: { operations: Array<{ kind: string; generationId: string | null }> };
  }>('GET', `/api/v1/agent/runs/${runId}`);
  let modelMs = 0;
  for (const step of run.steps) {
    if (['model', 'title', 'extract', 'analysis', 'subtask'].includes(step.kind)) modelMs += ms(step.finishedAt) - ms(step.startedAt);
  }
  let mediaMs = 0;
  for (const op of run.costs.operations) {
    if (op.kind !== 'generation' || !op.generationId) continue;
    const task = await api<{ createdAt: string; finishedAt: string | null }>('GET', `/api/v1/generation/${op.generationId}`);
    mediaMs += ms(task.finishedAt) - ms(task.createdAt);
  }
  return { status: run.status, createdMs: ms(run.createdAt), finishedMs: ms(run.finishedAt), modelMs, mediaMs };
}

/** Per run: wall − model − media (ms), and the same per engine step. */
function outside(times: RunTimes[], stepsPerRun: number) {
  const perRun = times.map((t) => t.finishedMs - t.createdMs - t.modelMs - t.mediaMs);
  const perStep = perRun.map((v) => v / stepsPerRun);
  return {
    perRun,
    perStep,
    modelMean: times.reduce((a, t) => a + t.modelMs, 0) / Math.max(1, times.length),
    mediaMean: times.reduce((a, t) => a + t.mediaMs, 0) / Math.max(1, times.length),
    wallMean: times.reduce((a, t) => a + t.finishedMs - t.createdMs, 0) / Math.max(1, times.length),
  };
}

// 0. Baseline.
await healthLatency(HEALTH_SAMPLES / 3); // warm-up
const healthStart = await healthLatency(HEALTH_SAMPLES);

// B. Fan-out, first, while the gateway's heap is young and quiet, so that its memory reading is the readers'.
const readers = await startSseReaders();
const eventsUrl = (conversationId: string, after: number) => `${gw.url}/api/v1/agent/conversations/${conversationId}/events?afterSequence=${after}`;

/** Runs on `conversationId` one after the other, alternately a text answer and an image then an answer. */
async function emitRuns(conversationId: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    if (i % 2 === 0) orchestrator.plan(conversationId, { text: `answer ${i}` });
    else planImage(conversationId);
    const runId = await send(conversationId, `question ${i}`);
    ids.push(runId);
    await waitAll([runId], 30_000);
  }
  return ids;
}

// B0. One reader: the baseline of delivery.
const single = await conversation('fan-out, one reader');
await readers.open(eventsUrl(single, await lastSequence(single)), user.key, 1);
const singleBefore = await lastSequence(single);
await emitRuns(single, 3);
await sleep(SETTLE_MS / 3);
const singleEvents = (await lastSequence(single)) - singleBefore;
const singleDelivery = await readers.collect();
await readers.close();

// B1. 1,000 readers.
const fanout = await conversation('fan-out');
const fanoutStart = await lastSequence(fanout);
const memBefore = await settledMemory();
const opened = await readers.open(eventsUrl(fanout, fanoutStart), user.key, READERS);
const memIdle = await settledMemory();
const rssNoGc = rssKb();
const cpuBefore = { gateway: cpuSeconds(pid), readers: cpuSeconds(readers.pid) };
const fanoutRuns = await emitRuns(fanout, 6);
const cpuFanout = { gateway: cpuSeconds(pid) - cpuBefore.gateway, readers: cpuSeconds(readers.pid) - cpuBefore.readers };
await sleep(SETTLE_MS);
const fanoutEvents = (await lastSequence(fanout)) - fanoutStart;
const delivery = await readers.collect();
await readers.close();
await readers.stop();
const fanoutStatuses = await Promise.all(fanoutRuns.map((id) => api<{ status: string }>('GET', `/api/v1/agent/runs/${id}`)));
const fanoutHistory = await api<{ events: Array<{ sequence: number; type: string; runId: string | null }> }>('GET', `/api/v1/agent/conversations/${fanout}/event-history?afterSequence=${fanoutStart}&limit=500`);

// C. Ten concurrent 25 MiB uploads.
const uploadConversation = await conversation('uploads');
const memBeforeUploads = await settledMemory();
let rssPeak = memBeforeUploads.rssKb;
const sampler = setInterval(() => {
  rssPeak = Math.max(rssPeak, rssKb());
}, 50);
const body = randomBytes(UPLOAD_BYTES);
const uploadStart = performance.now();
await Promise.all(
  Array.from({ length: UPLOADS }, async (_, i) => {
    const upload = await api<{ uploadUrl: string }>('POST', `/api/v1/agent/conversations/${uploadConversation}/attachments`, { name: `big-${i}.txt`, mime: 'text/plain', sizeBytes: UPLOAD_BYTES });
    const res = await fetch(upload.uploadUrl, { method: 'PUT', body: new Uint8Array(body), headers: { 'content-type': 'text/plain' } });
    if (!res.ok) throw new Error(`upload ${res.status} ${await res.text()}`);
  }),
);
const uploadS = (performance.now() - uploadStart) / 1000;
clearInterval(sampler);
const uploadGrowthMb = (rssPeak - memBeforeUploads.rssKb) / 1024;

// A1. The engine's own time per step, one run at a time (nothing else competes for the process).
const beforeSequential = await engineHistogram();
const sequentialIds: string[] = [];
for (let i = 0; i < SEQUENTIAL; i++) {
  const id = await conversation(`sequential ${i}`);
  planImage(id);
  const runId = await send(id, 'a lighthouse');
  sequentialIds.push(runId);
  await waitAll([runId], 60_000);
}
const sequential = minus(await engineHistogram(), beforeSequential);
const sequentialTimes = await Promise.all(sequentialIds.map(runTimes));

// A2. 100 concurrent runs to completion.
const conversations = await Promise.all(Array.from({ length: RUNS }, (_, i) => conversation(`bench ${i}`)));
for (const id of conversations) planImage(id);
const beforeConcurrent = await engineHistogram();
const startedAt = Date.now();
const started = performance.now();
const runIds = await Promise.all(conversations.map((id) => send(id, 'a lighthouse')));
await waitAll(runIds, 120_000);
const observedS = (performance.now() - started) / 1000;
const concurrent = minus(await engineHistogram(), beforeConcurrent);
const concurrentTimes: RunTimes[] = [];
for (const id of runIds) concurrentTimes.push(await runTimes(id));
const completed = concurrentTimes.filter((t) => t.status === 'completed').length;
const wallS = (Math.max(...concurrentTimes.map((t) => t.finishedMs)) - startedAt) / 1000;

// L. The peer, LangGraph JS, on the same orchestrator while the gateway is idle.
const peerCounts = { warm: SMOKE ? 1 : 10, sequential: SEQUENTIAL, concurrent: RUNS };
const peers = [await runLangGraphPeer(orchestrator, 'memory', peerCounts)];
const postgresPeer = await postgresReachable();
if (postgresPeer) peers.push(await runLangGraphPeer(orchestrator, 'postgres', { ...peerCounts, databaseUrl: BENCH_DATABASE_URL }));

// The books: `ledger verify` by the CLI on the same store, as an operator runs it.
const verify = spawnSync(process.execPath, ['src/main.ts', 'ledger', 'verify'], { env: { ...gw.env, LOG_LEVEL: 'warn' }, encoding: 'utf8' });
const ledger = (() => {
  try {
    return JSON.parse(verify.stdout) as { ok: boolean; mismatches: unknown[] };
  } catch {
    return { ok: false, mismatches: [verify.stdout.slice(0, 200), verify.stderr.slice(0, 200)] };
  }
})();

const healthEnd = await healthLatency(HEALTH_SAMPLES);
await gw.stop();
await orchestrator.close();
rmSync(memoryFile, { force: true });

const f = (v: number, digits = 2) => v.toFixed(digits);
const allSequentialCompleted = sequentialTimes.filter((t) => t.status === 'completed').length;
const stepsPerRunSequential = sequential.count / Math.max(1, SEQUENTIAL);
const stepsPerRunConcurrent = concurrent.count / Math.max(1, RUNS);
const outSequential = outside(sequentialTimes, stepsPerRunSequential);
const outConcurrent = outside(concurrentTimes, stepsPerRunConcurrent);
const inside = (h: Histogram) =>
  `${f(histogramPercentile(h.buckets, 50) * 1000)} / ${f(histogramPercentile(h.buckets, 99) * 1000)} ms (mean ${f((h.sum / Math.max(1, h.count)) * 1000)} ms, ${h.count} steps)`;
const out = (o: ReturnType<typeof outside>) => `${f(percentile(o.perStep, 50))} / ${f(percentile(o.perStep, 99))} ms`;
const outRun = (o: ReturnType<typeof outside>) =>
  `${f(percentile(o.perRun, 50), 1)} / ${f(percentile(o.perRun, 99), 1)} ms of a mean ${f(o.wallMean, 1)} ms wall (model ${f(o.modelMean, 1)}, media task ${f(o.mediaMean, 1)})`;
const seqP99 = histogramPercentile(sequential.buckets, 99) * 1000;

console.log(`\nbench/agent: 2 cores (shared VM), ${new Date().toISOString().slice(0, 10)}, total ${f((performance.now() - benchStarted) / 1000, 1)} s\n`);
console.log('A. Runs of one image then an answer (scripted orchestrator answering at once, local image provider), SQLite\n');
console.log(
  table([
    { measure: `${SEQUENTIAL} runs one at a time: completed`, value: `${allSequentialCompleted} / ${SEQUENTIAL}` },
    { measure: 'one at a time, engine per step p50 / p99, inside (histogram)', value: `${inside(sequential)}${seqP99 <= 10 ? ' (target p99 ≤ 10 ms: met)' : ' (target p99 ≤ 10 ms: MISSED)'}` },
    { measure: `one at a time, engine per step p50 / p99, outside (÷ ${f(stepsPerRunSequential, 1)} steps)`, value: out(outSequential) },
    { measure: 'one at a time, engine per run p50 / p99, outside', value: outRun(outSequential) },
    { measure: `${RUNS} concurrent runs: completed`, value: `${completed} / ${RUNS}` },
    { measure: `${RUNS} concurrent runs: wall time (first POST → last finishedAt)`, value: `${f(wallS)} s (${f(completed / wallS, 1)} runs/s; ${f(observedS)} s seen by polling)` },
    { measure: `${RUNS} concurrent, engine per step p50 / p99, inside (histogram)`, value: inside(concurrent) },
    { measure: `${RUNS} concurrent, engine per step p50 / p99, outside (÷ ${f(stepsPerRunConcurrent, 1)} steps)`, value: out(outConcurrent) },
    { measure: `${RUNS} concurrent, engine per run p50 / p99, outside`, value: outRun(outConcurrent) },
    { measure: 'ledger verify (CLI, same DATA_DIR)', value: ledger.ok ? 'ok, no mismatches' : `FAILED: ${JSON.stringify(ledger.mismatches).slice(0, 300)}` },
  ]),
);
const ratio = (ours: number, theirs: number) => `${f(ours / theirs)}×`;
const peerRows = peers.flatMap((peer) => {
  const name = peer.saver === 'postgres' ? 'LangGraph + PostgresSaver' : 'LangGraph + MemorySaver';
  const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);
  const phaseRows = (label: string, phase: (typeof peers)[number]['sequential'], engine: Histogram) => {
    const p50 = percentile(phase.perStep, 50);
    const p99 = percentile(phase.perStep, 99);
    return [
      { measure: `${name}, ${label}: completed`, value: `${phase.completed} / ${phase.runs} in ${f(phase.wallMs / 1000)} s` },
      { measure: `${name}, ${label}: LangGraph per step p50 / p99`, value: `${f(p50)} / ${f(p99)} ms (mean ${f(mean(phase.perStep))} ms, ${phase.steps} steps; per run ${f(mean(phase.perRun))} ms)` },
      {
        measure: `${name}, ${label}: engine ÷ LangGraph per step p50 / p99`,
        value: `${ratio(histogramPercentile(engine.buckets, 50) * 1000, p50)} / ${ratio(histogramPercentile(engine.buckets, 99) * 1000, p99)}`,
      },
    ];
  };
  return [...phaseRows('one at a time', peer.sequential, sequential), ...phaseRows(`${peer.concurrent.runs} concurrent`, peer.concurrent, concurrent)];
});
console.log(`\nA'. The same run on LangGraph JS (its own process; same orchestrator; the tool node renders with the local provider's renderer; below 1×: the engine is faster)\n`);
console.log(table(peerRows));
if (!postgresPeer) console.log('PostgreSQL not reachable: LangGraph with PostgresSaver not run');
const deliveryRow = (d: { delays: number[]; received: number }, expected: number) =>
  `${f(percentile(d.delays, 50), 0)} / ${f(percentile(d.delays, 99), 0)} / ${f(Math.max(...d.delays), 0)} ms (${d.received} of ${expected} deliveries)`;
const perReaderRss = (memIdle.rssKb - memBefore.rssKb) / READERS;
const perReaderHeap = (memIdle.heapUsedKb - memBefore.heapUsedKb) / READERS;
const fanoutP99 = percentile(delivery.delays, 99);
console.log(`\nB. SSE fan-out on one conversation (readers in a child process, raw HTTP)\n`);
console.log(
  table([
    { measure: `1 reader, 3 runs (${singleEvents} events): delay p50 / p99 / max`, value: deliveryRow(singleDelivery, singleEvents) },
    { measure: `${READERS} readers: opened`, value: `${opened.opened} in ${f(opened.ms / 1000)} s` },
    {
      measure: `${READERS} readers, 6 runs (${fanoutEvents} events): delay p50 / p99 / max`,
      value: `${deliveryRow(delivery, fanoutEvents * READERS)}${fanoutP99 <= 50 ? ' (target p99 ≤ 50 ms: met)' : ' (target p99 ≤ 50 ms: MISSED)'}`,
    },
    { measure: 'runs on the fan-out conversation', value: fanoutStatuses.map((r) => r.status).join(', ') },
    { measure: 'gateway RSS after full GC: before / with idle readers', value: `${f(memBefore.rssKb / 1024, 1)} / ${f(memIdle.rssKb / 1024, 1)} MiB (${f(rssNoGc / 1024, 1)} MiB a moment later)` },
    { measure: 'memory per idle reader, RSS', value: `${f(perReaderRss, 1)} KB${perReaderRss <= 50 ? ' (target ≤ 50 KB: met)' : ' (target ≤ 50 KB: MISSED)'}` },
    { measure: 'of which JS heap in use (after full GC)', value: `${f(perReaderHeap, 1)} KB` },
  ]),
);
// Where the delay goes: per event, its first arrival (the gateway's commit, publish and first write)
// and the spread from the first reader to the last (the writes to every socket and the readers' process).
const byEvent = new Map<number, { first: number; last: number }>();
delivery.sequences.forEach((sequence, i) => {
  const d = delivery.delays[i] ?? 0;
  const e = byEvent.get(sequence);
  if (e) {
    e.first = Math.min(e.first, d);
    e.last = Math.max(e.last, d);
  } else byEvent.set(sequence, { first: d, last: d });
});
const imageRuns = new Set(fanoutRuns.filter((_, i) => i % 2 === 1));
const typeOf = new Map(fanoutHistory.events.map((e) => [e.sequence, e]));
const groupDelays = (image: boolean) => delivery.delays.filter((_, i) => imageRuns.has(typeOf.get(delivery.sequences[i] ?? 0)?.runId ?? '') === image);
const firsts = [...byEvent.values()].map((e) => e.first);
const spreads = [...byEvent.values()].map((e) => e.last - e.first);
const slowest = [...byEvent.entries()].sort((a, b) => b[1].last - a[1].last).slice(0, 5);
console.log(`\nB'. Where the fan-out delay goes (per event over the ${READERS} readers)\n`);
console.log(
  table([
    { measure: 'first reader of each event: p50 / p99 / max', value: `${percentile(firsts, 50)} / ${percentile(firsts, 99)} / ${Math.max(...firsts)} ms` },
    { measure: 'first → last reader of each event: p50 / p99 / max', value: `${percentile(spreads, 50)} / ${percentile(spreads, 99)} / ${Math.max(...spreads)} ms` },
    { measure: 'events of the 3 text-only runs: delay p50 / p99', value: `${percentile(groupDelays(false), 50)} / ${percentile(groupDelays(false), 99)} ms` },
    { measure: 'events of the 3 image runs: delay p50 / p99', value: `${percentile(groupDelays(true), 50)} / ${percentile(groupDelays(true), 99)} ms` },
    {
      measure: 'CPU during the 6 runs: gateway / readers process',
      value: `${f(cpuFanout.gateway)} / ${f(cpuFanout.readers)} s (${f((cpuFanout.gateway * 1e6) / Math.max(1, delivery.received), 1)} / ${f((cpuFanout.readers * 1e6) / Math.max(1, delivery.received), 1)} µs per delivery)`,
    },
    {
      measure: 'slowest events (type: first / last reader)',
      value: slowest.map(([sequence, e]) => `${typeOf.get(sequence)?.type ?? sequence}: ${e.first} / ${e.last}`).join('; '),
    },
  ]),
);
console.log(`\nC. ${UPLOADS} concurrent uploads of ${UPLOAD_BYTES / 1024 / 1024} MiB to the gateway's upload URL\n`);
console.log(
  table([
    { measure: 'wall time', value: `${f(uploadS)} s` },
    { measure: 'gateway RSS before (after GC) / peak', value: `${f(memBeforeUploads.rssKb / 1024, 1)} / ${f(rssPeak / 1024, 1)} MiB` },
    { measure: 'growth (target < 64 MiB)', value: `${f(uploadGrowthMb, 1)} MiB` },
  ]),
);
console.log('\nBaseline: GET /healthz one at a time (same gateway)\n');
console.log(
  table([
    { measure: 'at the start: p50 / p99 (mean)', value: `${f(healthStart.p50)} / ${f(healthStart.p99)} ms (${f(healthStart.mean)} ms)` },
    { measure: 'at the end: p50 / p99 (mean)', value: `${f(healthEnd.p50)} / ${f(healthEnd.p99)} ms (${f(healthEnd.mean)} ms)` },
  ]),
);
