import { Gauge, type Registry } from 'prom-client';

/** What the store looks like now, read for a scrape. */
export interface StoreSample {
  queue: Array<{ kind: string; jobs: number; waiting: number; oldestDueAt: number | null }>;
  holds: { holds: number; heldMicro: number; oldestCreatedAt: number | null };
  at: number;
}

/** Several scrapers (Prometheus pairs, a person with curl) within this long share one reading. */
const SAMPLE_TTL_MS = 5_000;

/**
 * Gauges read from the store when /metrics is scraped, not kept up to date on request paths: the
 * queue by job kind (how many, how many wait for a worker, how long the oldest has waited) and the
 * money held by running requests. A store that cannot be read leaves the gauges out of that scrape
 * (the gateway's own readiness says why) rather than failing the whole scrape.
 */
export function registerStoreGauges(registry: Registry, sample: () => Promise<StoreSample>): void {
  let last: { value: Promise<StoreSample | undefined>; at: number } | undefined;
  const read = (): Promise<StoreSample | undefined> => {
    const now = Date.now();
    if (!last || now - last.at > SAMPLE_TTL_MS) last = { value: sample().catch(() => undefined), at: now };
    return last.value;
  };
  const ageSeconds = (since: number | null, now: number) => (since === null ? 0 : Math.max(0, (now - since) / 1000));

  new Gauge({
    name: 'switchboard_queue_jobs',
    help: 'Jobs in the work queue by kind (due, leased and scheduled)',
    labelNames: ['kind'],
    registers: [registry],
    async collect() {
      const s = await read();
      this.reset();
      for (const q of s?.queue ?? []) this.set({ kind: q.kind }, q.jobs);
    },
  });
  new Gauge({
    name: 'switchboard_queue_waiting_jobs',
    help: 'Jobs due now that no worker holds, by kind',
    labelNames: ['kind'],
    registers: [registry],
    async collect() {
      const s = await read();
      this.reset();
      for (const q of s?.queue ?? []) this.set({ kind: q.kind }, q.waiting);
    },
  });
  new Gauge({
    name: 'switchboard_queue_oldest_wait_seconds',
    help: 'How long the longest-waiting due job of each kind has waited for a worker (0 when none waits)',
    labelNames: ['kind'],
    registers: [registry],
    async collect() {
      const s = await read();
      this.reset();
      for (const q of s?.queue ?? []) this.set({ kind: q.kind }, s ? ageSeconds(q.oldestDueAt, s.at) : 0);
    },
  });
  new Gauge({
    name: 'switchboard_ledger_holds',
    help: 'Running text requests holding money (each hold is settled or released when its request ends)',
    registers: [registry],
    async collect() {
      const s = await read();
      if (s) this.set(s.holds.holds);
    },
  });
  new Gauge({
    name: 'switchboard_ledger_held_usd',
    help: 'Money held by running text requests, USD',
    registers: [registry],
    async collect() {
      const s = await read();
      if (s) this.set(s.holds.heldMicro / 1_000_000);
    },
  });
  new Gauge({
    name: 'switchboard_ledger_oldest_hold_seconds',
    help: 'Age of the oldest open hold (a hold older than the longest request points at a settlement that is not running)',
    registers: [registry],
    async collect() {
      const s = await read();
      if (s) this.set(ageSeconds(s.holds.oldestCreatedAt, s.at));
    },
  });
}
