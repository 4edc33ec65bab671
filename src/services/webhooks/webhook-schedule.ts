/**
 * When a webhook delivery is attempted (DESIGN decision 10). Entry i is the delay before attempt i+1,
 * counted from the end of the attempt before it (from the enqueue for the first): immediately, 5 s,
 * 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, so 8 attempts over about 27.6 hours. After the last one fails,
 * the delivery is `failed`.
 */
export const DEFAULT_RETRY_SCHEDULE_MS: readonly number[] = [
  0,
  5_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3_600_000,
  5 * 3_600_000,
  10 * 3_600_000,
  10 * 3_600_000,
];

/** Each delay is moved by up to ±10 % so that deliveries failing together do not retry together. */
export const RETRY_JITTER = 0.1;

/**
 * A receiver's Retry-After is honoured (the next attempt is not earlier than it asks) up to this
 * bound, so that a receiver cannot park a delivery for days; it never adds attempts.
 */
export const MAX_RETRY_AFTER_MS = 10 * 3_600_000;

/** The delay before attempt `attemptNo` (1-based), jittered; undefined when the schedule has no such attempt. */
export function delayBeforeAttempt(attemptNo: number, schedule: readonly number[], random: () => number = Math.random): number | undefined {
  const base = schedule[attemptNo - 1];
  if (base === undefined) return undefined;
  if (base === 0) return 0;
  const factor = 1 + RETRY_JITTER * (2 * random() - 1);
  return Math.max(0, Math.round(base * factor));
}

/**
 * When to try again after attempt `attemptsMade` failed at `now`, or undefined when that was the last
 * attempt of the schedule. `retryAfterMs` (from the response) can only push the time later.
 */
export function nextAttemptAt(args: {
  attemptsMade: number;
  now: number;
  schedule: readonly number[];
  retryAfterMs?: number | undefined;
  random?: () => number;
}): number | undefined {
  const delay = delayBeforeAttempt(args.attemptsMade + 1, args.schedule, args.random);
  if (delay === undefined) return undefined;
  const asked = args.retryAfterMs === undefined ? 0 : Math.min(Math.max(0, args.retryAfterMs), MAX_RETRY_AFTER_MS);
  return args.now + Math.max(delay, asked);
}

/**
 * A Retry-After header in milliseconds from `now`: delay-seconds or an HTTP date (RFC 9110 §10.2.3).
 * Undefined when absent or unreadable.
 */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/u.test(text)) return Number(text) * 1000;
  if (!/[a-z]/iu.test(text)) return undefined;
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}
