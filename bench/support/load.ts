import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';

export interface LoadResult {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  non2xx: number;
}

export interface LoadOptions {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  connections?: number;
  durationS?: number;
}

const hasWrk = process.env.BENCH_LOADGEN !== 'autocannon' && spawnSync('wrk', ['--version']).error === undefined;

/** Which load generator runs: wrk (C, light on the shared CPU) when installed, else autocannon. */
export const loadGenerator = hasWrk ? 'wrk' : 'autocannon';

/** Closed-loop HTTP load (keep-alive, one request in flight per connection). */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  return hasWrk ? runWrk(options) : runAutocannon(options);
}

async function runAutocannon(options: LoadOptions): Promise<LoadResult> {
  const result = await autocannon({
    url: options.url,
    method: options.method ?? 'GET',
    headers: options.headers ?? {},
    ...(options.body !== undefined ? { body: options.body } : {}),
    connections: options.connections ?? 32,
    duration: options.durationS ?? 6,
    pipelining: 1,
  });
  return {
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
  };
}

function runWrk(options: LoadOptions): LoadResult {
  const dir = mkdtempSync(join(tmpdir(), 'sb-wrk-'));
  const script = join(dir, 'request.lua');
  const lines = [`wrk.method = ${JSON.stringify(options.method ?? 'GET')}`];
  if (options.body !== undefined) lines.push(`wrk.body = ${luaString(options.body)}`);
  for (const [k, v] of Object.entries(options.headers ?? {})) lines.push(`wrk.headers[${luaString(k)}] = ${luaString(v)}`);
  // Count non-2xx answers: wrk reports them only in aggregate.
  lines.push('local bad = 0', 'response = function(status) if status < 200 or status > 299 then bad = bad + 1 end end');
  lines.push('done = function(summary, latency, requests) io.write(string.format("NON2XX %d\\n", bad)) end');
  writeFileSync(script, lines.join('\n'));
  const connections = options.connections ?? 32;
  const run = spawnSync('wrk', ['-t', '1', '-c', String(connections), '-d', `${options.durationS ?? 6}s`, '--latency', '-s', script, options.url], { encoding: 'utf8' });
  const out = run.stdout;
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? 0);
  const errors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  return {
    requestsPerSecond: rps,
    p50Ms: latencyMs(out, '50%'),
    p99Ms: latencyMs(out, '99%'),
    errors: errors ? errors.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0,
    // Note: the Lua `response` hook runs per thread; with one thread the count is exact.
    non2xx: Number(/NON2XX (\d+)/.exec(out)?.[1] ?? /Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0),
  };
}

function latencyMs(out: string, percentile: string): number {
  const m = new RegExp(`${percentile.replace('%', '%')}\\s+([\\d.]+)(us|ms|s)`).exec(out);
  if (!m) return Number.NaN;
  const value = Number(m[1]);
  return m[2] === 'us' ? value / 1000 : m[2] === 's' ? value * 1000 : value;
}

function luaString(value: string): string {
  return `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`;
}

/** The run with the median throughput (its latencies come with it). */
export function median(results: LoadResult[]): LoadResult {
  const sorted = [...results].sort((a, b) => a.requestsPerSecond - b.requestsPerSecond);
  return sorted[Math.floor(sorted.length / 2)] as LoadResult;
}

export function table(rows: Array<Record<string, string | number>>): string {
  const columns = Object.keys(rows[0] ?? {});
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => String(r[c]).length)));
  const line = (cells: string[]) => `| ${cells.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  return [line(columns), line(widths.map((w) => '-'.repeat(w))), ...rows.map((r) => line(columns.map((c) => String(r[c]))))].join('\n');
}
