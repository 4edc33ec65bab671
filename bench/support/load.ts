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

/** Closed-loop HTTP load with autocannon (pipelining 1, keep-alive). */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
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

export function table(rows: Array<Record<string, string | number>>): string {
  const columns = Object.keys(rows[0] ?? {});
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => String(r[c]).length)));
  const line = (cells: string[]) => `| ${cells.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  return [line(columns), line(widths.map((w) => '-'.repeat(w))), ...rows.map((r) => line(columns.map((c) => String(r[c]))))].join('\n');
}
