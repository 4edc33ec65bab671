/**
 * How the webhooks queue shares its slots (issue 29, item 9; docs/webhooks-and-files.md "Fair
 * slots"): caps per user and per destination origin, and the back-off of an origin that keeps
 * failing. Pure rules; the fair claim (src/adapters/queue/fair-claim.ts) applies them.
 */
import type { LaneCaps } from '../../ports/work-queue.port.ts';

/**
 * A user may hold an eighth of the slots, one origin a sixteenth (at least one each): with 64 slots,
 * 8 and 4. Far below what the queue drains, so that seven users whose receivers all hang still
 * leave slots for the rest; enough for one healthy receiver to take hundreds a second.
 */
export function webhookLaneCaps(slots: number): LaneCaps {
  return { perTenant: Math.max(1, Math.floor(slots / 8)), perTarget: Math.max(1, Math.floor(slots / 16)) };
}

/** Consecutive failures of an origin before it is paused. */
export const TARGET_FAILURES_BEFORE_PAUSE = 3;
const FIRST_PAUSE_MS = 10_000;
const LONGEST_PAUSE_MS = 10 * 60_000;

/**
 * How long an origin with `failures` consecutive failures is paused: none below the threshold,
 * then 10 s doubling with each failed probe, at most 10 minutes. Deliveries to a paused origin
 * wait without using an attempt of their schedule; a probe after the pause is a real attempt.
 */
export function targetPauseMs(failures: number): number {
  if (failures < TARGET_FAILURES_BEFORE_PAUSE) return 0;
  return Math.min(LONGEST_PAUSE_MS, FIRST_PAUSE_MS * 2 ** Math.min(20, failures - TARGET_FAILURES_BEFORE_PAUSE));
}

/**
 * Whether an attempt's failure says the origin itself is unwell: no answer (refused, reset, timed
 * out, a name that does not resolve), 5xx, 429, or a redirect (never followed, so nothing there can
 * be delivered). Another 4xx is an answer about this request or path, and a refused destination
 * (a private address, a port) is a rule of ours: neither pauses the origin.
 */
export function failureCountsAgainstTarget(result: { statusCode: number | null; final: boolean }): boolean {
  if (result.final) return false;
  const status = result.statusCode;
  if (status === null) return true;
  return status >= 500 || status === 429 || (status >= 300 && status <= 399);
}
