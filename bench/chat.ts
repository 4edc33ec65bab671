/**
 * bench/chat: the cost of the gateway on the text path, against calling the upstream directly and
 * against `@portkey-ai/gateway` on the same machine and the same upstream. Five processes: a minimal
 * OpenAI-compatible fake upstream (bench/chat/fake-upstream.ts), our gateway (production settings:
 * info logs, the embedded SQLite store unless `--store postgres`), Portkey (bench/chat/portkey-server.ts),
 * the floor of any Node gateway (bench/chat/floor-proxy.ts: node:http + undici, no logic), and this
 * one, which drives the load.
 *
 * Measures, non-streaming and streaming:
 * - throughput: closed-loop load (wrk when installed, else autocannon), same connections for all;
 * - CPU time per request of each process (`/proc/<pid>/stat` over the measured run): the figure that
 *   stays comparable on a shared machine;
 * - added latency at a fixed 500 requests/s, two ways: autocannon `overallRate` (see autocannonRate)
 *   and a paced open loop (pacedRate); p50 and p99 through each gateway minus the same percentile direct;
 * - memory: resident memory of the gateway process before and with 1,000 open idle streams (the
 *   upstream holds each after its first chunk), per stream; each reading after a full garbage
 *   collection (bench/chat/gc-on-signal.ts), on fresh processes after a one-second warm-up.
 *
 * The gateway is measured three ways for throughput and latency: on chat completions through the chat
 * lane; on the same route through Fastify (`switchboard fastify`, the lane's comparison); and on the
 * Responses route (`switchboard responses`: the same question as a Responses request, to the same fake
 * upstream over chat completions, on the same connections), whose throughput should stay within 15 %
 * of chat completions'.
 *
 *   node bench/chat.ts [--duration 5] [--rounds 3] [--connections 32] [--store sqlite|postgres] [--streams 1000] [--only memory|responses|lane] [--smoke]
 *
 * `--only responses` and `--only lane` measure only the gateway's routes (and the direct upstream and the
 * floor), for those rows; `--only memory` only the idle streams.
 *
 * The per-request cost budget: `CPU us/req` is each process's CPU time per request, and `CPU vs floor`
 * its ratio to the floor's in the same round (the floor proxies the same request with no logic), so
 * the gateway's own cost reads as a multiple of the least any Node proxy spends.
 *
 * `--smoke` (test/bench/bench-smoke.test.ts): one round of 0.3 s per target, short warm-ups, 10 idle
 * streams on the same processes (no restart); it checks that the bench completes and prints its rows.
 *
 * Throughput, CPU per request and the autocannon latencies are the median of `--rounds` rounds that
 * alternate over the targets, so that a slow minute of the shared machine falls on all of them.
 *
 * BENCH_LOADGEN=autocannon forces autocannon for the closed loop; BENCH_PRELOAD=<file> replaces the
 * preload of the measured processes (e.g. one that also writes a heap snapshot on SIGUSR2).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { freePort, startChildGateway } from './support/child-gateway.ts';
import { loadGenerator, runLoad, table } from './support/load.ts';
import { cpuSeconds } from './support/process-cpu.ts';
import { SMOKE } from './support/smoke.ts';

const arg = (name: string, fallback: string): string => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? (process.argv[i + 1] ?? fallback) : fallback;
};
const durationS = Number(arg('duration', SMOKE ? '0.3' : '5'));
/** Warm-up before each measured run, and the wait for a process to settle (after a collection, after closing streams). */
const WARM_UP_S = SMOKE ? 0.1 : 1;
const SETTLE_MS = SMOKE ? 200 : 1000;
/** Alternating rounds over the targets; each figure is the median round (the machine's speed drifts by a third within minutes). */
const rounds = Number(arg('rounds', SMOKE ? '1' : '3'));
const connections = Number(arg('connections', '32'));
const store = arg('store', 'sqlite') === 'postgres' ? 'postgres' : 'sqlite';
const openStreams = Number(arg('streams', SMOKE ? '10' : '1000'));
/** `--only memory` measures the idle streams and stops; `--only responses` / `--only lane` the gateway's routes (and direct), without memory. */
const only = arg('only', 'all');
const RATE = 500;

const children: ChildProcess[] = [];
/** Lets the bench ask a measured process for a full garbage collection (SIGUSR2) before reading its memory. */
const MEASURED_NODE_OPTIONS = `--expose-gc --import=${process.env.BENCH_PRELOAD ?? join(process.cwd(), 'bench/chat/gc-on-signal.ts')}`;
const cleanups: Array<() => Promise<void> | void> = [];

function spawnScript(script: string, args: string[], env: Record<string, string> = {}): ChildProcess {
  const child = spawn(process.execPath, [script, ...args], { env: { ...process.env, NODE_OPTIONS: MEASURED_NODE_OPTIONS, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  return child;
}

async function startFake(): Promise<{ url: string; pid: number }> {
  const child = spawnScript('bench/chat/fake-upstream.ts', []);
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (data: Buffer) => {
      out += data.toString();
      const match = /PORT (\d+)/.exec(out);
      if (match) resolve(Number(match[1]));
    });
    child.once('exit', (code) => reject(new Error(`fake upstream exited (${code})`)));
  });
  child.stdout?.resume();
  return { url: `http://127.0.0.1:${port}`, pid: child.pid ?? 0 };
}

async function startFloor(upstream: string): Promise<{ url: string; pid: number }> {
  const port = await freePort();
  const child = spawnScript('bench/chat/floor-proxy.ts', [String(port), upstream]);
  await new Promise<void>((resolve, reject) => {
    child.stdout?.once('data', () => resolve());
    child.once('exit', (code) => reject(new Error(`floor proxy exited (${code})`)));
  });
  child.stdout?.resume();
  return { url: `http://127.0.0.1:${port}`, pid: child.pid ?? 0 };
}

async function startPortkey(): Promise<{ url: string; pid: number }> {
  const port = await freePort();
  const child = spawnScript('bench/chat/portkey-server.ts', [String(port)], { NODE_ENV: 'production' });
  child.stdout?.resume();
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      if ((await fetch(url)).ok) break;
    } catch {}
    if (Date.now() > deadline) throw new Error('Portkey did not start');
    await new Promise((r) => setTimeout(r, 100));
  }
  return { url, pid: child.pid ?? 0 };
}

/** Resident memory after a full garbage collection of the process. */
async function settledRssKb(pid: number): Promise<number> {
  process.kill(pid, 'SIGUSR2');
  await new Promise((r) => setTimeout(r, SETTLE_MS));
  return rssKb(pid);
}

function rssKb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? Number.NaN);
}

interface Target {
  name: string;
  url: string;
  headers: Record<string, string>;
  /** The model in the body for a complete answer and for a held stream. */
  fastModel: string;
  holdModel: string;
  pid: number;
  /** The request body of its protocol; chat completions unless said. */
  body: (model: string, stream: boolean) => string;
  /** What ends a good stream of its protocol. */
  streamEnd: string;
}

const chatBody = (model: string, stream: boolean): string =>
  JSON.stringify({
    model,
    messages: [{ role: 'system', content: 'You are a helpful assistant.' }, { role: 'user', content: 'Say something short about foxes.' }],
    max_tokens: 256,
    ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}),
  });

/** The same question as a Responses request. */
const responsesBody = (model: string, stream: boolean): string =>
  JSON.stringify({
    model,
    instructions: 'You are a helpful assistant.',
    input: 'Say something short about foxes.',
    max_output_tokens: 256,
    ...(stream ? { stream: true } : {}),
  });

const CHAT = { body: chatBody, streamEnd: '[DONE]' };

async function check(target: Target, stream: boolean): Promise<void> {
  const res = await fetch(target.url, { method: 'POST', headers: target.headers, body: target.body(target.fastModel, stream) });
  const text = await res.text();
  if (res.status !== 200 || (stream ? !text.includes(target.streamEnd) : !text.includes('fox'))) {
    throw new Error(`${target.name} ${stream ? 'stream' : 'completion'} failed: ${res.status} ${text.slice(0, 300)}`);
  }
}

/** Closed-loop load; also the CPU time the target's process spent per request (robust on a shared machine). */
async function throughput(target: Target, stream: boolean) {
  const options = { url: target.url, method: 'POST' as const, headers: target.headers, body: target.body(target.fastModel, stream), connections };
  await runLoad({ ...options, durationS: WARM_UP_S });
  const cpu0 = cpuSeconds(target.pid);
  const result = await runLoad({ ...options, durationS });
  const cpuUsPerRequest = ((cpuSeconds(target.pid) - cpu0) * 1e6) / (result.requestsPerSecond * durationS);
  return { ...result, cpuUsPerRequest };
}

interface RateResult {
  p50: number;
  p99: number;
  achieved: number;
  errors: number;
}

function medianOf(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

function medianBy<T>(items: T[], key: (item: T) => number): T {
  const sorted = [...items].sort((a, b) => key(a) - key(b));
  return sorted[Math.floor(sorted.length / 2)] as T;
}

function percentiles(times: number[], achieved: number, errors: number): RateResult {
  times.sort((a, b) => a - b);
  const pct = (p: number): number => times[Math.min(times.length - 1, Math.floor((p / 100) * times.length))] ?? Number.NaN;
  return { p50: pct(50), p99: pct(99), achieved, errors };
}

/**
 * autocannon at RATE requests/s (`overallRate`). Its limiter lets each connection send back to back
 * until it has made its share of the second, then waits for the next second: with many connections
 * that is a burst of concurrent requests every second, whose queueing it would then measure. One
 * connection makes the same 500 requests a second one after another, so each time is the request's
 * own (taken from the `response` events: fractional milliseconds; autocannon's histogram keeps whole ones).
 */
async function autocannonRate(target: Target, stream: boolean): Promise<RateResult> {
  const times: number[] = [];
  const run = (duration: number, record: boolean) =>
    new Promise<autocannon.Result>((resolve, reject) => {
      const instance = autocannon(
        { url: target.url, method: 'POST', headers: target.headers, body: target.body(target.fastModel, stream), connections: 1, overallRate: RATE, duration },
        (error, result) => (error ? reject(error) : resolve(result)),
      );
      if (record) instance.on('response', (_client, statusCode, _bytes, responseTime) => statusCode === 200 && times.push(responseTime));
    });
  await run(WARM_UP_S, false);
  const result = await run(durationS, true);
  return percentiles(times, result.requests.average, result.errors + result.timeouts + result.non2xx);
}

/**
 * Open loop at RATE requests/s, paced: a request is sent every 1/RATE s whatever the answers do (on
 * up to 64 keep-alive connections), and each is timed from its send to its last byte. This is the
 * arrival pattern the latency target describes; the two measures agree when nothing queues.
 */
async function pacedRate(target: Target, stream: boolean): Promise<RateResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const url = new URL(target.url);
  const payload = target.body(target.fastModel, stream);
  const headers = { ...target.headers, 'content-length': String(Buffer.byteLength(payload)) };
  let errors = 0;
  const one = (): Promise<number | undefined> =>
    new Promise((resolve) => {
      const sent = performance.now();
      const req = httpRequest({ host: url.hostname, port: url.port, path: url.pathname, method: 'POST', agent, headers }, (res) => {
        res.on('data', () => {});
        res.on('end', () => {
          if (res.statusCode === 200) resolve(performance.now() - sent);
          else {
            errors++;
            resolve(undefined);
          }
        });
      });
      req.on('error', () => {
        errors++;
        resolve(undefined);
      });
      req.end(payload);
    });
  const run = async (seconds: number): Promise<number[]> => {
    const pending: Array<Promise<number | undefined>> = [];
    const start = performance.now();
    const total = RATE * seconds;
    while (pending.length < total) {
      const due = Math.min(total, Math.floor(((performance.now() - start) / 1000) * RATE) + 1);
      while (pending.length < due) pending.push(one());
      await new Promise((r) => setTimeout(r, 1));
    }
    return (await Promise.all(pending)).filter((t): t is number => t !== undefined);
  };
  try {
    await run(2 * WARM_UP_S);
    errors = 0;
    const started = performance.now();
    const times = await run(durationS);
    return percentiles(times, times.length / ((performance.now() - started) / 1000), errors);
  } finally {
    agent.destroy();
  }
}

/** RSS growth of the target's process with `count` open idle streams. */
async function idleStreams(target: Target, count: number): Promise<{ beforeKb: number; afterKb: number; perStreamKb: number; opened: number }> {
  const agent = new Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY });
  await new Promise((r) => setTimeout(r, SETTLE_MS));
  const beforeKb = await settledRssKb(target.pid);
  const url = new URL(target.url);
  const payload = target.body(target.holdModel, true);
  const opened: Array<() => void> = [];
  const open = () =>
    new Promise<void>((resolve, reject) => {
      const req = httpRequest(
        { host: url.hostname, port: url.port, path: url.pathname, method: 'POST', agent, headers: { ...target.headers, 'content-length': Buffer.byteLength(payload) } },
        (res) => {
          if (res.statusCode !== 200) reject(new Error(`${target.name}: idle stream answered ${res.statusCode}`));
          res.once('data', () => resolve());
          opened.push(() => req.destroy());
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  try {
    for (let at = 0; at < count; at += 100) await Promise.all(Array.from({ length: Math.min(100, count - at) }, open));
    const afterKb = await settledRssKb(target.pid);
    return { beforeKb, afterKb, perStreamKb: (afterKb - beforeKb) / count, opened: opened.length };
  } finally {
    for (const close of opened) close();
    agent.destroy();
    await new Promise((r) => setTimeout(r, SETTLE_MS));
  }
}

/** The three measured processes (ours, Portkey, the floor), fresh, beside the shared fake upstream. */
async function startTargets(fake: { url: string; pid: number }): Promise<{ targets: Target[]; stop: () => Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'sb-bench-chat-'));
  const configFile = join(dir, 'switchboard.json');
  writeFileSync(
    configFile,
    JSON.stringify({
      providers: { fake: { type: 'openai', baseUrl: `${fake.url}/v1`, apiKey: 'sk-bench', timeoutMs: 600_000 } },
      routes: { 'gpt-5.4-mini': [{ provider: 'fake', model: 'fast' }], 'gpt-5.4': [{ provider: 'fake', model: 'hold' }] },
    }),
  );
  // Started side by side: each takes seconds to load, most of a smoke run on a busy machine.
  const [portkey, floor, gw] = await Promise.all([
    startPortkey(),
    startFloor(fake.url),
    startChildGateway({ store, env: { SWITCHBOARD_CONFIG: configFile, NODE_OPTIONS: MEASURED_NODE_OPTIONS } }),
  ]);
  const { key } = await gw.createUser(100_000_000);
  const json = { 'content-type': 'application/json' };
  const targets: Target[] = [
    { name: 'direct', url: `${fake.url}/v1/chat/completions`, headers: { ...json, authorization: 'Bearer sk-bench' }, fastModel: 'fast', holdModel: 'hold', pid: fake.pid, ...CHAT },
    {
      name: 'switchboard',
      url: `${gw.url}/api/v1/chat/completions`,
      headers: { ...json, authorization: `Bearer ${key}` },
      fastModel: 'gpt-5.4-mini',
      holdModel: 'gpt-5.4',
      pid: gw.processes[0]?.pid ?? 0,
      ...CHAT,
    },
    {
      name: 'switchboard responses',
      url: `${gw.url}/api/v1/responses`,
      headers: { ...json, authorization: `Bearer ${key}` },
      fastModel: 'gpt-5.4-mini',
      holdModel: 'gpt-5.4',
      pid: gw.processes[0]?.pid ?? 0,
      body: responsesBody,
      streamEnd: 'event: response.completed',
    },
    {
      // The same gateway process through Fastify's request lifecycle: the chat lane leaves any request
      // with a query string to the Fastify route, which does the same work (src/http/chat-lane.ts).
      name: 'switchboard fastify',
      url: `${gw.url}/api/v1/chat/completions?path=fastify`,
      headers: { ...json, authorization: `Bearer ${key}` },
      fastModel: 'gpt-5.4-mini',
      holdModel: 'gpt-5.4',
      pid: gw.processes[0]?.pid ?? 0,
      ...CHAT,
    },
    {
      name: 'portkey',
      url: `${portkey.url}/v1/chat/completions`,
      headers: { ...json, authorization: 'Bearer sk-bench', 'x-portkey-provider': 'openai', 'x-portkey-custom-host': `${fake.url}/v1` },
      fastModel: 'fast',
      holdModel: 'hold',
      pid: portkey.pid,
      ...CHAT,
    },
    { name: 'node floor', url: `${floor.url}/v1/chat/completions`, headers: json, fastModel: 'fast', holdModel: 'hold', pid: floor.pid, ...CHAT },
  ].filter((t) => only === 'all' || only === 'memory' || t.name === 'direct' || t.name === 'node floor' || t.name === 'switchboard' || t.name === `switchboard ${only === 'lane' ? 'fastify' : 'responses'}`);
  const stop = async () => {
    await gw.stop();
    for (const pid of [portkey.pid, floor.pid]) {
      try {
        process.kill(pid, 'SIGTERM');
      } catch {}
    }
    rmSync(dir, { recursive: true, force: true });
  };
  return { targets, stop };
}

try {
  const fake = await startFake();
  // Throughput and latency first, on fresh processes; then memory, on processes started again (a
  // gateway that does not cancel its upstream when the client leaves keeps those streams afterwards).
  const started = await startTargets(fake);
  cleanups.push(() => started.stop());
  let targets = started.targets;
  for (const t of targets) for (const stream of [false, true]) await check(t, stream);

  const rows: Array<Record<string, string | number>> = [];
  const results: Record<string, Record<string, number>> = {};
  const cpuVsFloor: Record<string, number> = {};
  for (const stream of only === 'memory' ? [] : [false, true]) {
    const mode = stream ? 'streaming' : 'non-streaming';
    const rps: Record<string, number> = {};
    const latency: Record<string, RateResult> = {};
    const paced: Record<string, RateResult> = {};
    const closed: Record<string, { p50Ms: number; p99Ms: number; errors: number; non2xx: number; cpuUsPerRequest: number }> = {};
    const closedRounds = new Map<string, Array<Awaited<ReturnType<typeof throughput>>>>();
    const latencyRounds = new Map<string, RateResult[]>();
    for (let round = 0; round < rounds; round++) {
      for (const t of targets) closedRounds.set(t.name, [...(closedRounds.get(t.name) ?? []), await throughput(t, stream)]);
      for (const t of targets) latencyRounds.set(t.name, [...(latencyRounds.get(t.name) ?? []), await autocannonRate(t, stream)]);
    }
    for (const t of targets) {
      const r = medianBy(closedRounds.get(t.name) ?? [], (x) => x.requestsPerSecond);
      rps[t.name] = r.requestsPerSecond;
      closed[t.name] = { ...r, cpuUsPerRequest: medianOf((closedRounds.get(t.name) ?? []).map((x) => x.cpuUsPerRequest)) };
      const l = latencyRounds.get(t.name) ?? [];
      latency[t.name] = { p50: medianOf(l.map((x) => x.p50)), p99: medianOf(l.map((x) => x.p99)), achieved: medianOf(l.map((x) => x.achieved)), errors: l.reduce((n, x) => n + x.errors, 0) };
    }
    for (const t of targets) paced[t.name] = await pacedRate(t, stream);
    results[mode] = rps;
    const floorCpu = closed['node floor']?.cpuUsPerRequest;
    cpuVsFloor[mode] = floorCpu === undefined ? Number.NaN : (closed.switchboard?.cpuUsPerRequest ?? Number.NaN) / floorCpu;
    for (const t of targets) {
      const l = latency[t.name];
      const d = latency.direct;
      const q = paced[t.name];
      const qd = paced.direct;
      const c = closed[t.name];
      if (!l || !d || !c || !q || !qd) continue;
      const added = (x: RateResult, base: RateResult) => (t.name === 'direct' ? '-' : `${(x.p50 - base.p50).toFixed(2)}/${(x.p99 - base.p99).toFixed(2)}`);
      rows.push({
        mode,
        target: t.name,
        'req/s': Math.round(rps[t.name] ?? 0),
        'vs direct': ((rps[t.name] ?? 0) / (rps.direct ?? 1)).toFixed(2),
        'vs portkey': rps.portkey === undefined ? '-' : ((rps[t.name] ?? 0) / rps.portkey).toFixed(2),
        'vs chat completions': t.name === 'switchboard responses' ? ((rps[t.name] ?? 0) / (rps.switchboard ?? 1)).toFixed(2) : '-',
        'CPU us/req': Math.round(c.cpuUsPerRequest),
        'CPU vs floor': floorCpu === undefined ? '-' : (c.cpuUsPerRequest / floorCpu).toFixed(2),
        'loaded p50/p99 ms': `${c.p50Ms}/${c.p99Ms}`,
        [`@${RATE}/s autocannon p50/p99`]: `${l.p50.toFixed(2)}/${l.p99.toFixed(2)}`,
        'added (autocannon)': added(l, d),
        [`@${RATE}/s paced p50/p99`]: `${q.p50.toFixed(2)}/${q.p99.toFixed(2)}`,
        'added (paced)': added(q, qd),
        errors: c.errors + c.non2xx + l.errors + q.errors,
      });
    }
  }

  if (only === 'all' && !SMOKE) {
    await started.stop();
    cleanups.pop();
    const restarted = await startTargets(fake);
    cleanups.push(() => restarted.stop());
    targets = restarted.targets;
  }
  const memory: Array<Record<string, string | number>> = [];
  // On fresh processes (after a short warm-up), so that heap grown by the load phases does not hide the streams.
  // The Responses route holds a stream as chat completions does (the same service and encoder path); the
  // Fastify path runs in the gateway's own process, so its streams would be counted on top of the lane's.
  for (const t of only === 'responses' || only === 'lane' ? [] : targets.slice(1).filter((x) => x.name !== 'switchboard responses' && x.name !== 'switchboard fastify')) {
    try {
      await runLoad({ url: t.url, method: 'POST', headers: t.headers, body: t.body(t.fastModel, true), connections: 8, durationS: WARM_UP_S });
      const m = await idleStreams(t, openStreams);
      memory.push({ target: t.name, streams: m.opened, 'RSS before MB': (m.beforeKb / 1024).toFixed(1), 'RSS after MB': (m.afterKb / 1024).toFixed(1), 'KB per stream': m.perStreamKb.toFixed(1) });
    } catch (error) {
      memory.push({ target: t.name, streams: 0, 'RSS before MB': '-', 'RSS after MB': '-', 'KB per stream': `failed: ${(error as Error).message}` });
    }
  }


  console.log(`\nbench/chat (store ${store}; closed loop: ${loadGenerator}, ${connections} connections, ${durationS} s, median of ${rounds} alternating rounds; fixed rate ${RATE} req/s: autocannon overallRate on 1 connection, and a paced open loop on up to 64)\n`);
  if (rows.length > 0) console.log(table(rows));
  if (memory.length > 0) {
    console.log(`\nOpen idle streams (upstream holds each after its first chunk):\n`);
    console.log(table(memory));
  }
  const ratio = (mode: string) => ((results[mode]?.switchboard ?? 0) / (results[mode]?.portkey ?? 1)).toFixed(2);
  if (rows.length > 0 && only === 'all') console.log(`\nThroughput vs Portkey: non-streaming ${ratio('non-streaming')}x, streaming ${ratio('streaming')}x (target >= 4x)`);
  const responses = (mode: string) => ((results[mode]?.['switchboard responses'] ?? 0) / (results[mode]?.switchboard ?? 1)).toFixed(2);
  if (rows.length > 0 && only !== 'lane') console.log(`Responses vs chat completions: non-streaming ${responses('non-streaming')}x, streaming ${responses('streaming')}x (target >= 0.85x)`);
  const budget = (mode: string) => `${(cpuVsFloor[mode] ?? Number.NaN).toFixed(2)}x`;
  if (rows.length > 0) console.log(`Gateway CPU per chat request vs the floor's (chat lane): non-streaming ${budget('non-streaming')}, streaming ${budget('streaming')}`);
  const viaFastify = (mode: string) => ((results[mode]?.['switchboard fastify'] ?? 0) / (results[mode]?.switchboard ?? 1)).toFixed(2);
  if (rows.length > 0 && only !== 'responses') console.log(`Fastify path vs the chat lane: non-streaming ${viaFastify('non-streaming')}x, streaming ${viaFastify('streaming')}x`);
} finally {
  for (const cleanup of cleanups.reverse()) await cleanup();
  for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
}
