/**
 * How the webhooks queue shares its slots (issue 29, item 9; docs/webhooks-and-files.md "Fair
 * slots"): caps per user and per destination origin, and the back-off of an origin that keeps
 * failing. Pure rules; the fair claim (src/adapters/queue/fair-claim.ts) applies them.
 */
import type { LaneCaps, TargetStreak } from '../../ports/work-queue.port.ts';

/**
 * A user may hold an eighth of the slots, one origin a sixteenth (at least one each): with 64 slots,
 * 8 and 4. Far below what the queue drains, so that seven users whose receivers all hang still
 * leave slots for the rest; enough for one healthy receiver to take hundreds a second.
 */
export function webhookLaneCaps(slots: number): LaneCaps {
  return { perTenant: Math.max(1, Math.floor(slots / 8)), perTarget: Math.max(1, Math.floor(slots / 16)) };
}

/** Failures in a row that pause an origin however quickly they came. */
const FAILURES_IN_A_ROW = 10;
/** …or this many, once the origin has had no success for SUSTAINED_MS. */
const SUSTAINED_FAILURES = 3;
const SUSTAINED_MS = 2_000;
const SHORTEST_PAUSE_MS = 10_000;
const LONGEST_PAUSE_MS = 10 * 60_000;

/**
 * How long to pause an origin after a failure, given its streak (0: not paused). It keeps failing
 * when 10 attempts in a row failed, or 3 did and none succeeded for 2 s: a busy receiver that fails
 * a share of its requests and answers the rest is not paused for three unlucky ones in a row (each
 * success ends the streak). The pause lasts as long as the origin has been failing, at least 10 s
 * and at most 10 minutes, so each failed probe about doubles it. Deliveries to a paused origin wait
 * without using an attempt of their schedule; a probe after the pause is a real attempt.
 */
export function targetPauseMs(streak: TargetStreak): number {
  const keepsFailing = streak.failures >= FAILURES_IN_A_ROW || (streak.failures >= SUSTAINED_FAILURES && streak.failingForMs >= SUSTAINED_MS);
  if (!keepsFailing) return 0;
  return Math.min(LONGEST_PAUSE_MS, Math.max(SHORTEST_PAUSE_MS, streak.failingForMs));
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
