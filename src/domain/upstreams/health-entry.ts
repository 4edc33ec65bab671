/**
 * One subject's health record without its name, and the rules read from it, shared by the memory and
 * the Redis health boards so that both decide and word a state the same way.
 */
import type { UpstreamFailure, UpstreamHealthRecord, UpstreamState } from '../../ports/upstream-health.port.ts';

export type HealthEntry = Omit<UpstreamHealthRecord, 'subject' | 'state'>;

export function blankHealthEntry(): HealthEntry {
  return { failures: 0, coolingUntil: null, disabledReason: null, lastError: null, lastErrorAt: null, lastSuccessAt: null };
}

export function healthStateOf(entry: HealthEntry, now: number): UpstreamState {
  if (entry.disabledReason !== null) return 'disabled';
  if (entry.coolingUntil !== null && now < entry.coolingUntil) return 'cooling';
  return 'healthy';
}

/** Why an auth or quota failure disabled a key, in the operator's words. */
export function refusalReason(failure: UpstreamFailure): string {
  return failure.kind === 'auth' ? `the upstream refused the key: ${failure.message}` : `the upstream account's quota or credit is spent: ${failure.message}`;
}
