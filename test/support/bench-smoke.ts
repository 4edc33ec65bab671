import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { redisServerMissing } from './chaos/redis-server.ts';
import { REQUIRE_SERVICES, serviceSkipReason, TEST_DATABASE_URL } from './services.ts';

/**
 * The smoke runs of the benchmarks (issue 35, "benchmarks that cannot rot"): each bench/*.ts runs with
 * `--smoke` (tiny counts, short durations: bench/support/smoke.ts) as a child process on the same Node,
 * and must exit 0 and print its tables. Figures are never judged; the rows that say something worked
 * (runs completed, the books balanced) are.
 */
export const ROOT = join(import.meta.dirname, '..', '..');
/**
 * One smoke's bound: seconds on a quiet machine, but the chaos smoke took 204 s inside a full CI run
 * on two busy cores. Generous, since it only has to end a hung bench, never to judge speed.
 */
export const SMOKE_TIMEOUT_MS = 600_000;

export interface BenchSmoke {
  /** The file under bench/, without `.ts`. */
  bench: string;
  /** Lines or fragments its stdout must hold (a RegExp where table padding varies). */
  expect: Array<string | RegExp>;
  /** More that it must print when PostgreSQL is reachable (it measures that store too). */
  withPostgres?: Array<string | RegExp>;
  /** Needs PostgreSQL and a redis-server of its own (the chaos scenario): skipped without them, as test/chaos is. */
  scaleOut?: boolean;
}

/** Every bench and what its smoke run must print; the coverage test fails for a bench missing here. */
export const BENCH_SMOKES: BenchSmoke[] = [
  {
    bench: 'agent',
    expect: [
      /\| 3 runs one at a time: completed\s+\| 3 \/ 3 /,
      /\| 3 concurrent runs: completed\s+\| 3 \/ 3 /,
      /\| ledger verify \(CLI, same DATA_DIR\)\s+\| ok, no mismatches/,
      /\| LangGraph \+ MemorySaver, one at a time: completed\s+\| 3 \/ 3 /,
      /\| LangGraph \+ MemorySaver, 3 concurrent: completed\s+\| 3 \/ 3 /,
      'LangGraph + MemorySaver, one at a time: engine ÷ LangGraph per step p50 / p99',
      /\| 5 readers: opened\s+\| 5 in /,
      /\| runs on the fan-out conversation\s+\| completed, completed, completed, completed, completed, completed /,
      "B'. Where the fan-out delay goes",
      'C. 1 concurrent uploads of 1 MiB',
      'Baseline: GET /healthz one at a time',
    ],
    withPostgres: [/\| LangGraph \+ PostgresSaver, one at a time: completed\s+\| 3 \/ 3 /, /\| LangGraph \+ PostgresSaver, 3 concurrent: completed\s+\| 3 \/ 3 /],
  },
  {
    bench: 'chat',
    expect: [
      /\| mode\s+\| target\s+\| req\/s\s+\| vs direct\s+\|.*\| CPU us\/req\s+\| CPU vs floor\s+\|/,
      ...['direct', 'switchboard', 'switchboard responses', 'switchboard fastify', 'portkey', 'node floor'].flatMap((target) => [
        new RegExp(`\\| non-streaming \\| ${target}\\s+\\|`),
        new RegExp(`\\| streaming\\s+\\| ${target}\\s+\\|`),
      ]),
      'Open idle streams',
      /\| switchboard\s+\| 10\s+\|/,
      'Throughput vs Portkey: non-streaming',
      "Gateway CPU per chat request vs the floor's (chat lane): non-streaming",
    ],
  },
  {
    bench: 'foundation',
    expect: [/\| sqlite\s+\| GET \/healthz\s+\|/, /\| sqlite\s+\| GET \/api\/v1\/user\/me\s+\|/, /\| sqlite\s+\| POST \/api\/v1\/generation\/estimate\s+\|/],
    withPostgres: [/\| postgres\s+\| GET \/api\/v1\/user\/me\s+\|/, /\| postgres\s+\| POST \/api\/v1\/generation\/estimate\s+\|/],
  },
  {
    bench: 'generation',
    expect: [
      /\| store\s+\| measure\s+\| value\s+\| ratio\s+\| CPU µs\/req\s+\| CPU vs \/healthz\s+\|/,
      /\| sqlite\s+\| POST \/generation\/create\s+\|/,
      /\| sqlite\s+\| GET \/task\/status\/\{id\}\s+\|/,
      // All ten tasks finished (the last column counts those that did not).
      /\| sqlite\s+\| create → finished \(10 tasks, instant upstream\).*\| 0\s+\|$/m,
    ],
    withPostgres: [/\| postgres\s+\| drain 20 tasks, upstream 500 ms, 1 worker process\s+\|.*\| 0\s+\|$/m],
  },
  {
    bench: 'stats',
    expect: ['sqlite: loaded 5,000 tasks and 5,000 chat requests', /\| sqlite\s+\| heaviest user \(\d+ tasks, \d+ chats\)\s+\| \?range=30d/, /\| sqlite\s+\| median user/],
    withPostgres: ['postgres: loaded 5,000 tasks and 5,000 chat requests', /\| postgres\s+\| median user/],
  },
  {
    bench: 'json-body',
    expect: ['| idle (no payload) |', /\| 1 MiB tiny arrays → \/generation\/estimate \|.*\| 400 /, /\| 1 MiB tiny arrays → \/chat\/completions \|.*\| 400 /, /\| 1 MiB base64 picture → \/chat\/completions \|.*\| 200 /],
  },
  {
    bench: 'hostile-input',
    expect: ['files, node', 'schemas, node', 'text, node', /\| payload\s+\| longest hold, CPU ms \(each round\)/],
  },
  {
    bench: 'output-validator',
    expect: [/\| summary \+ urls \(auto fields\)\s+\|/, /\| a value with errors\s+\|/, /step budget \d+: spent after [\d.]+ ms/],
  },
  {
    bench: 'google-inline-images',
    expect: ['image 1 MiB', /request, BlobJson\s+longest loop hold/, /answer, parseBlobJson\s+longest loop hold/],
  },
  {
    bench: 'chaos',
    scaleOut: true,
    expect: ['## A. Recovery after each fault', '## B. Creates per phase', '## C. Creates during the Redis outage', '| faults happened as planned |', '| ledger verify clean |'],
  },
  {
    bench: 'rolling-restart',
    scaleOut: true,
    expect: ['scale-out (2 API + 2 workers, PostgreSQL + Redis), the first 2 processes restarted in turn', /\| api-0 \| \d+ ms \| /, /\| worker-0 \| \d+ ms \| /, 'event stream reader:', 'embedded (one process, SQLite), restarted once on the same port', /ledger: \d+ mismatches/],
  },
];

export function benchFiles(): string[] {
  return readdirSync(join(ROOT, 'bench'))
    .filter((name) => name.endsWith('.ts'))
    .map((name) => name.slice(0, -3))
    .sort();
}

export function smokeFor(bench: string): BenchSmoke {
  const smoke = BENCH_SMOKES.find((s) => s.bench === bench);
  if (!smoke) throw new Error(`no smoke entry for bench/${bench}.ts`);
  return smoke;
}

/** Why a smoke run cannot run here (skipped), undefined when it can; throws when a missing service is required. */
export async function smokeSkipReason(smoke: BenchSmoke): Promise<string | undefined> {
  if (!smoke.scaleOut) return undefined;
  const missingRedis = redisServerMissing();
  if (missingRedis && REQUIRE_SERVICES) throw new Error(`${missingRedis} and SWITCHBOARD_REQUIRE_SERVICES=1`);
  return (await serviceSkipReason('PostgreSQL', TEST_DATABASE_URL)) ?? missingRedis;
}

/** Whether the benches will find PostgreSQL (they measure it when they do); throws when it is required and absent. */
export async function postgresForBenches(): Promise<boolean> {
  return (await serviceSkipReason('PostgreSQL', TEST_DATABASE_URL)) === undefined;
}

/**
 * Runs `node bench/<name>.ts --smoke` and checks its exit code and its rows. The bench leads its own
 * process group, so that a test that times out (`signal`) ends it with the gateways it started; it is
 * done when it exits and its stdout has ended (a gateway it left behind would hold only stderr).
 */
export async function runSmoke(smoke: BenchSmoke, postgres: boolean, signal?: AbortSignal): Promise<void> {
  const child = spawn(process.execPath, [join('bench', `${smoke.bench}.ts`), '--smoke'], {
    cwd: ROOT,
    env: { ...process.env, NODE_OPTIONS: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const killGroup = () => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    } catch {}
  };
  signal?.addEventListener('abort', killGroup, { once: true });
  let stdout = '';
  // The gateways' logs come through stderr: keep the end, for the failure message.
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-6_000);
  });
  const ended = new Promise<void>((resolve) => child.stdout.once('end', resolve));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  await ended;
  child.stderr.destroy();
  // Whatever the bench left running (a gateway it failed to stop) goes with it.
  killGroup();
  signal?.removeEventListener('abort', killGroup);
  const context = `bench/${smoke.bench}.ts --smoke\n--- stdout ---\n${stdout.slice(-6_000)}\n--- stderr (end) ---\n${stderr}`;
  assert.equal(code, 0, `exit code ${code}: ${context}`);
  for (const expected of [...smoke.expect, ...(postgres ? (smoke.withPostgres ?? []) : [])]) {
    if (typeof expected === 'string') assert.ok(stdout.includes(expected), `missing ${JSON.stringify(expected)}: ${context}`);
    else assert.match(stdout, expected, context);
  }
}
