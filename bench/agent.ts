/**
 * bench/agent (issue 10): the agent's run engine and event fan-out, in embedded mode (SQLite, the
 * in-process worker, the built-in local media provider making real images), with the orchestrator a
 * scripted OpenAI-style upstream that answers at once.
 *
 *  A. 100 concurrent runs (one image, then an answer) to completion: wall time, runs/s, and the engine's
 *     own time per step (switchboard_agent_engine_seconds: a step's time without the wait for the
 *     model), p50 and p99 interpolated within the histogram's buckets. Target p99 ≤ 10 ms.
 *  B. 1,000 open SSE readers on one conversation: the delay from an event's createdAt to its arrival
 *     at each reader (p50, p99, max) while runs emit events (target p99 ≤ 50 ms), and the gateway's
 *     resident memory per idle reader (target ≤ 50 KB).
 *  C. Ten concurrent 25 MiB uploads to the gateway's own upload URL: the gateway's resident memory
 *     growth (target < 64 MiB: uploads stream to storage).
 *
 *   node bench/agent.ts [--runs 100] [--readers 1000] [--uploads 10]
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { ScriptedOrchestrator } from '../test/fakes/scripted-orchestrator.ts';
import { startChildGateway } from './support/child-gateway.ts';
import { table } from './support/load.ts';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const RUNS = arg('runs', 100);
const READERS = arg('readers', 1000);
const UPLOADS = arg('uploads', 10);
const UPLOAD_BYTES = 25 * 1024 * 1024;

const orchestrator = await ScriptedOrchestrator.start('openai');
const gw = await startChildGateway({
  store: 'sqlite',
  configFile: {
    providers: { orch: orchestrator.provider() },
    routes: { 'gpt-5.4-mini': ['orch'] },
    worker: { concurrency: 64 },
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

async function waitAll(runIds: string[], timeoutMs: number): Promise<Map<string, string>> {
  const done = new Map<string, string>();
  const deadline = Date.now() + timeoutMs;
  while (done.size < runIds.length && Date.now() < deadline) {
    for (const id of runIds) {
      if (done.has(id)) continue;
      const run = await api<{ status: string }>('GET', `/api/v1/agent/runs/${id}`);
      if (['completed', 'failed', 'cancelled'].includes(run.status)) done.set(id, run.status);
    }
    if (done.size < runIds.length) await new Promise((r) => setTimeout(r, 100));
  }
  return done;
}

function rssKb(): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
}

/** p-th percentile from Prometheus buckets (upper bounds in seconds → cumulative counts), linear within a bucket. */
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

async function engineHistogram(): Promise<Histogram> {
  const text = await (await fetch(`${gw.url}/metrics`)).text();
  const byBound = new Map<number, number>();
  let count = 0;
  let sum = 0;
  for (const line of text.split('\n')) {
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

interface Histogram {
  buckets: Array<[number, number]>;
  count: number;
  sum: number;
}

function minus(after: Histogram, before: Histogram): Histogram {
  const earlier = new Map(before.buckets);
  return { buckets: after.buckets.map(([bound, count]) => [bound, count - (earlier.get(bound) ?? 0)]), count: after.count - before.count, sum: after.sum - before.sum };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

const plan = (id: string) => orchestrator.plan(id, { toolCalls: [{ name: 'generate_image', arguments: { prompt: 'a lighthouse', model: 'z-image-turbo' } }] }, { text: 'Done.' });
const healthStart = performance.now();
for (let i = 0; i < 200; i++) await fetch(`${gw.url}/healthz`).then((r) => r.arrayBuffer());
const healthMs = (performance.now() - healthStart) / 200;

// B first, while the gateway's heap is young and quiet, so that its memory reading is the readers'.
const fanout = await conversation('fan-out');
const settle = () => new Promise((r) => setTimeout(r, 3_000));
await settle();
const rssBefore = rssKb();
const delays: number[] = [];
let received = 0;
const readers: http.ClientRequest[] = [];
const agent = new http.Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY });
await Promise.all(
  Array.from(
    { length: READERS },
    () =>
      new Promise<void>((resolve, reject) => {
        const req = http.get(`${gw.url}/api/v1/agent/conversations/${fanout}/events`, { agent, headers: { authorization: auth.authorization, accept: 'text/event-stream' } }, (res) => {
          if (res.statusCode !== 200) reject(new Error(`SSE ${res.statusCode}`));
          res.setEncoding('utf8');
          let buffer = '';
          res.on('data', (chunk: string) => {
            const now = Date.now();
            buffer += chunk;
            let end = buffer.indexOf('\n\n');
            while (end >= 0) {
              const frame = buffer.slice(0, end);
              buffer = buffer.slice(end + 2);
              const data = /^data: (.*)$/m.exec(frame)?.[1];
              if (data) {
                const event = JSON.parse(data) as { createdAt: string };
                delays.push(now - Date.parse(event.createdAt));
                received += 1;
              }
              end = buffer.indexOf('\n\n');
            }
          });
          resolve();
        });
        req.on('error', reject);
        readers.push(req);
      }),
  ),
);
await settle();
const rssIdle = rssKb();
const perReaderKb = (rssIdle - rssBefore) / READERS;
const eventsBefore = (await api<{ lastSequence: number }>('GET', `/api/v1/agent/conversations/${fanout}/event-history?limit=1`)).lastSequence;
const fanoutRuns: string[] = [];
for (let i = 0; i < 5; i++) {
  orchestrator.plan(fanout, { text: `answer ${i}` });
  const runId = await send(fanout, `question ${i}`);
  fanoutRuns.push(runId);
  await waitAll([runId], 30_000);
}
await new Promise((r) => setTimeout(r, 1_000));
const eventsAfter = (await api<{ lastSequence: number }>('GET', `/api/v1/agent/conversations/${fanout}/event-history?limit=1`)).lastSequence;
const expected = (eventsAfter - eventsBefore) * READERS;
for (const req of readers) req.destroy();
delays.sort((a, b) => a - b);

// C. Ten concurrent 25 MiB uploads.
const uploadConversation = await conversation('uploads');
await settle();
const rssBeforeUploads = rssKb();
let rssPeak = rssBeforeUploads;
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
const uploadGrowthMb = (rssPeak - rssBeforeUploads) / 1024;

// A1. The engine's own time per step, one run at a time (nothing else competes for the process).
const SEQUENTIAL = 30;
const beforeSequential = await engineHistogram();
for (let i = 0; i < SEQUENTIAL; i++) {
  const id = await conversation(`sequential ${i}`);
  plan(id);
  await waitAll([await send(id, 'a lighthouse')], 60_000);
}
const sequential = minus(await engineHistogram(), beforeSequential);

// A2. 100 concurrent runs to completion.
const conversations = await Promise.all(Array.from({ length: RUNS }, (_, i) => conversation(`bench ${i}`)));
for (const id of conversations) plan(id);
const beforeConcurrent = await engineHistogram();
const started = performance.now();
const runIds = await Promise.all(conversations.map((id) => send(id, 'a lighthouse')));
const statuses = await waitAll(runIds, 300_000);
const wallS = (performance.now() - started) / 1000;
const completed = [...statuses.values()].filter((s) => s === 'completed').length;
const concurrent = minus(await engineHistogram(), beforeConcurrent);

await gw.stop();
await orchestrator.close();

const stepRows = (label: string, h: Histogram) => [
  { measure: `${label}: engine steps observed`, value: h.count },
  { measure: `${label}: engine time per step, mean`, value: `${((h.sum / Math.max(1, h.count)) * 1000).toFixed(2)} ms` },
  { measure: `${label}: engine time per step, p50`, value: `${(histogramPercentile(h.buckets, 50) * 1000).toFixed(2)} ms` },
  { measure: `${label}: engine time per step, p99`, value: `${(histogramPercentile(h.buckets, 99) * 1000).toFixed(2)} ms` },
];
console.log('\nA. Runs of one image and an answer (scripted orchestrator answering at once, local image provider), SQLite\n');
console.log(
  table([
    ...stepRows(`${SEQUENTIAL} runs one at a time (target p99 ≤ 10 ms)`, sequential),
    { measure: `${RUNS} concurrent runs: completed`, value: `${completed} / ${RUNS}` },
    { measure: `${RUNS} concurrent runs: wall time`, value: `${wallS.toFixed(2)} s` },
    { measure: `${RUNS} concurrent runs: runs per second`, value: (completed / wallS).toFixed(1) },
    ...stepRows(`${RUNS} concurrent runs`, concurrent),
    { measure: 'baseline: GET /healthz, sequential mean', value: `${healthMs.toFixed(2)} ms` },
  ]),
);
console.log(`\nB. ${READERS} SSE readers on one conversation\n`);
console.log(
  table([
    { measure: 'deliveries received / expected', value: `${received} / ${expected}` },
    { measure: 'delivery delay p50', value: `${percentile(delays, 50)} ms` },
    { measure: 'delivery delay p99 (target ≤ 50 ms)', value: `${percentile(delays, 99)} ms` },
    { measure: 'delivery delay max', value: `${delays.at(-1) ?? Number.NaN} ms` },
    { measure: 'gateway RSS before / with idle readers', value: `${(rssBefore / 1024).toFixed(1)} / ${(rssIdle / 1024).toFixed(1)} MiB` },
    { measure: 'memory per idle reader (target ≤ 50 KB)', value: `${perReaderKb.toFixed(1)} KB` },
  ]),
);
console.log(`\nC. ${UPLOADS} concurrent uploads of 25 MiB to the gateway's upload URL\n`);
console.log(
  table([
    { measure: 'wall time', value: `${uploadS.toFixed(2)} s` },
    { measure: 'gateway RSS before / peak', value: `${(rssBeforeUploads / 1024).toFixed(1)} / ${(rssPeak / 1024).toFixed(1)} MiB` },
    { measure: 'growth (target < 64 MiB)', value: `${uploadGrowthMb.toFixed(1)} MiB` },
  ]),
);
