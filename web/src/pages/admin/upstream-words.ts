/** How the live state of an upstream key or route entry reads to a person. */
import type { UpstreamKey } from '../../api/index.ts';
import { formatTime } from '../../format.ts';

export const STATE_TEXT: Record<'healthy' | 'cooling' | 'disabled', string> = { healthy: 'Healthy', cooling: 'Cooling down', disabled: 'Off' };

export function keyStateWords(key: UpstreamKey): string {
  if (!key.enabled) return 'Switched off: gets no requests until switched on.';
  if (key.state === 'disabled') return `Refused by the provider${key.disabledReason ? ` (${key.disabledReason})` : ''}. Fix the key at the provider, then test or switch it on again.`;
  if (key.state === 'cooling') return `Cooling down until ${formatTime(key.coolingUntil)} after failing${key.lastError ? `: ${key.lastError}` : ''}. Tried again after that.`;
  return key.lastError ? `Serving. Last error ${formatTime(key.lastErrorAt)}: ${key.lastError}` : 'Serving.';
}

export function stateBadgeClass(state: string): string {
  return state === 'healthy' ? 'badge badge-health-healthy' : state === 'cooling' ? 'badge badge-health-degraded' : 'badge badge-health-down';
}
