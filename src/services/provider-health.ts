/**
 * Recent outcomes of upstream calls per provider, for the operator (GET /admin/v1/providers) and for
 * routing decisions. A sliding window in memory: cheap to record on every call.
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

interface Sample {
  at: number;
  ok: boolean;
}

const WINDOW_MS = 15 * 60 * 1000;
const MAX_SAMPLES = 2000;

export class ProviderHealth {
  private readonly samples = new Map<string, Sample[]>();
  private readonly lastError = new Map<string, { message: string; at: number }>();
  private readonly lastSuccess = new Map<string, number>();

  record(provider: string, ok: boolean, errorMessage?: string, now: number = Date.now()): void {
    let list = this.samples.get(provider);
    if (!list) {
      list = [];
      this.samples.set(provider, list);
    }
    list.push({ at: now, ok });
    if (list.length > MAX_SAMPLES) list.splice(0, list.length - MAX_SAMPLES);
    if (ok) this.lastSuccess.set(provider, now);
    else this.lastError.set(provider, { message: errorMessage ?? 'error', at: now });
  }

  snapshot(provider: string, now: number = Date.now()): ProviderHealthSnapshot {
    const recent = (this.samples.get(provider) ?? []).filter((s) => s.at >= now - WINDOW_MS);
    const errors = recent.filter((s) => !s.ok).length;
    const errorRate = recent.length === 0 ? 0 : errors / recent.length;
    const status = recent.length === 0 ? 'unknown' : errorRate >= 0.5 ? 'down' : errorRate > 0.05 ? 'degraded' : 'healthy';
    const lastError = this.lastError.get(provider);
    const lastSuccess = this.lastSuccess.get(provider);
    return {
      status,
      calls: recent.length,
      errors,
      errorRate: Math.round(errorRate * 1000) / 1000,
      lastError: lastError?.message ?? null,
      lastErrorAt: lastError ? new Date(lastError.at).toISOString() : null,
      lastSuccessAt: lastSuccess ? new Date(lastSuccess).toISOString() : null,
    };
  }
}
