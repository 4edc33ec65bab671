import type { AttemptHealthStore } from '../../ports/attempt-health.port.ts';
import type { UnitOfWork } from '../../ports/unit-of-work.port.ts';

/**
 * Recent outcomes of upstream calls per provider, for the operator (GET /admin/v1/providers).
 * Media attempts are read from the store, so every worker process counts; chat calls happen in the
 * API process that serves them and are counted here in memory (each attempt of a failover too, which
 * the request records do not keep).
 */
export interface ProviderHealthSnapshot {
  /** `healthy`, `degraded` (some errors), `down` (mostly errors) or `unknown` (no recent calls). */
  status: 'healthy' | 'degraded' | 'down' | 'unknown';
  calls: number;
  errors: number;
  errorRate: number;
  lastError: string | null;
  lastErrorAt: string | null;
  lastSuccessAt: string | null;
}

/** One minute of chat calls of one provider. */
interface MinuteCount {
  minute: number;
  calls: number;
  errors: number;
}

interface Tally {
  calls: number;
  errors: number;
  lastError: { message: string; at: number } | undefined;
  lastSuccess: number | undefined;
}

export const HEALTH_WINDOW_MS = 15 * 60 * 1000;
const MINUTE_MS = 60_000;
/** A ring of minute counts covering the window (plus the minute in progress). */
const MINUTES = HEALTH_WINDOW_MS / MINUTE_MS + 1;

export class ProviderHealth {
  private readonly attempts: AttemptHealthStore;
  private readonly uow: UnitOfWork;
  /** Counts per minute, not a sample per call: recording is two increments on the hot path, whatever the rate. */
  private readonly minutes = new Map<string, MinuteCount[]>();
  private readonly lastError = new Map<string, { message: string; at: number }>();
  private readonly lastSuccess = new Map<string, number>();

  constructor(attempts: AttemptHealthStore, uow: UnitOfWork) {
    this.attempts = attempts;
    this.uow = uow;
  }

  /** A chat call of this process. */
  record(provider: string, ok: boolean, errorMessage?: string, now: number = Date.now()): void {
    let ring = this.minutes.get(provider);
    if (!ring) {
      ring = Array.from({ length: MINUTES }, () => ({ minute: -1, calls: 0, errors: 0 }));
      this.minutes.set(provider, ring);
    }
    const minute = Math.floor(now / MINUTE_MS);
    const count = ring[minute % MINUTES] as MinuteCount;
    if (count.minute !== minute) {
      count.minute = minute;
      count.calls = 0;
      count.errors = 0;
    }
    count.calls++;
    if (!ok) count.errors++;
    if (ok) this.lastSuccess.set(provider, now);
    else this.lastError.set(provider, { message: errorMessage ?? 'error', at: now });
  }

  async snapshots(providers: string[], now: number = Date.now()): Promise<Map<string, ProviderHealthSnapshot>> {
    const since = now - HEALTH_WINDOW_MS;
    const tallies = new Map<string, Tally>(providers.map((p) => [p, this.memoryTally(p, since)]));
    // Ended media attempts of every process; attempts still running say nothing yet.
    for (const row of await this.attempts.tallyEndedAttempts(this.uow.direct, since)) {
      const tally = tallies.get(row.provider);
      if (!tally) continue;
      tally.calls += row.succeeded + row.failed;
      tally.errors += row.failed;
      if (row.lastSucceededAt !== null) tally.lastSuccess = Math.max(tally.lastSuccess ?? 0, row.lastSucceededAt);
      if (row.failed > 0) {
        const latest = await this.attempts.latestFailedAttempt(this.uow.direct, row.provider, since);
        if (latest && (!tally.lastError || latest.at > tally.lastError.at)) tally.lastError = latest;
      }
    }
    return new Map([...tallies].map(([p, t]) => [p, summarize(t)]));
  }

  private memoryTally(provider: string, since: number): Tally {
    // Whole minutes: the window's first minute counts entirely.
    const first = Math.floor(since / MINUTE_MS);
    let calls = 0;
    let errors = 0;
    for (const count of this.minutes.get(provider) ?? []) {
      if (count.minute < first) continue;
      calls += count.calls;
      errors += count.errors;
    }
    return {
      calls,
      errors,
      lastError: this.lastError.get(provider),
      lastSuccess: this.lastSuccess.get(provider),
    };
  }
}

function summarize(t: Tally): ProviderHealthSnapshot {
  const errorRate = t.calls === 0 ? 0 : t.errors / t.calls;
  const status = t.calls === 0 ? 'unknown' : errorRate >= 0.5 ? 'down' : errorRate > 0.05 ? 'degraded' : 'healthy';
  return {
    status,
    calls: t.calls,
    errors: t.errors,
    errorRate: Math.round(errorRate * 1000) / 1000,
    lastError: t.lastError?.message ?? null,
    lastErrorAt: t.lastError ? new Date(t.lastError.at).toISOString() : null,
    lastSuccessAt: t.lastSuccess ? new Date(t.lastSuccess).toISOString() : null,
  };
}
