/**
 * The health board as this process's memory (the embedded mode: one process serves everything); the
 * scale-out mode shares the records through Redis (redis-health-board.ts).
 */
import { coolingMs } from '../../domain/upstreams/cooldown.ts';
import { blankHealthEntry, type HealthEntry as Entry, healthStateOf, refusalReason } from '../../domain/upstreams/health-entry.ts';
import type { UpstreamFailure, UpstreamHealthBoard, UpstreamHealthRecord, UpstreamState } from '../../ports/upstream-health.port.ts';

export class MemoryHealthBoard implements UpstreamHealthBoard {
  readonly #entries = new Map<string, Entry>();

  state(subject: string, now: number = Date.now()): UpstreamState {
    const entry = this.#entries.get(subject);
    if (!entry) return 'healthy';
    return healthStateOf(entry, now);
  }

  record(subject: string, now: number = Date.now()): UpstreamHealthRecord | undefined {
    const entry = this.#entries.get(subject);
    return entry ? { subject, state: healthStateOf(entry, now), ...entry } : undefined;
  }

  records(prefix: string, now: number = Date.now()): UpstreamHealthRecord[] {
    const out: UpstreamHealthRecord[] = [];
    for (const [subject, entry] of this.#entries) if (subject.startsWith(prefix)) out.push({ subject, state: healthStateOf(entry, now), ...entry });
    return out;
  }

  succeeded(subject: string, now: number = Date.now()): void {
    const entry = this.#entries.get(subject);
    // Nothing recorded is the common case: a healthy call costs one lookup.
    if (!entry) return;
    entry.failures = 0;
    entry.coolingUntil = null;
    entry.lastSuccessAt = now;
  }

  failed(subject: string, failure: UpstreamFailure, now: number = Date.now()): void {
    const entry = this.#entry(subject);
    entry.failures++;
    entry.lastError = failure.message;
    entry.lastErrorAt = now;
    if (failure.kind === 'auth' || failure.kind === 'quota') {
      entry.disabledReason ??= refusalReason(failure);
      return;
    }
    entry.coolingUntil = Math.max(entry.coolingUntil ?? 0, now + coolingMs(entry.failures, failure));
  }

  async disable(subject: string, reason: string, now: number = Date.now()): Promise<void> {
    const entry = this.#entry(subject);
    entry.disabledReason = reason;
    entry.lastErrorAt ??= now;
  }

  async enable(subject: string): Promise<void> {
    const entry = this.#entries.get(subject);
    if (!entry) return;
    entry.failures = 0;
    entry.coolingUntil = null;
    entry.disabledReason = null;
  }

  async start(): Promise<void> {}

  async close(): Promise<void> {}

  #entry(subject: string): Entry {
    let entry = this.#entries.get(subject);
    if (!entry) {
      entry = blankHealthEntry();
      this.#entries.set(subject, entry);
    }
    return entry;
  }
}
