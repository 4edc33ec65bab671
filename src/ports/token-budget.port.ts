/**
 * Tokens per minute (issue 33, item 6): a budget per key in aligned one-minute windows, taken whole
 * or not at all, and given back in part. A request takes its worst case (prompt estimate plus
 * max_tokens) before its hold; when it settles, what it did not use goes back to the window it was
 * taken from, so running requests count their worst case and finished ones what they used.
 * Embedded: this process's memory. Scale-out: Redis, shared by every process, with this process's
 * memory as the fallback while Redis is away (a budget never fails or delays a request because of
 * its store).
 */

export const TOKEN_WINDOW_MS = 60_000;

export type TokenVerdict =
  /** Taken: `window` names the minute to give back to. */
  | { allowed: true; window: number; used: number }
  /** Not taken (nothing counted): `used` tokens are counted in this minute, which ends in `retryAfterMs`. */
  | { allowed: false; used: number; retryAfterMs: number };

export interface TokenBudget {
  /** Takes `amount` tokens of `key`'s `max` per minute when they fit whole in the current minute. */
  take(key: string, amount: number, max: number): Promise<TokenVerdict>;
  /** Gives `amount` back to `window` (the take's); nothing once that minute has ended. */
  giveBack(key: string, amount: number, window: number): Promise<void>;
  close(): Promise<void>;
}

/** The minute `now` falls in. */
export function tokenWindowOf(now: number): number {
  return Math.floor(now / TOKEN_WINDOW_MS);
}

/** Milliseconds until the minute `now` falls in ends. */
export function tokenWindowLeftMs(now: number): number {
  return (tokenWindowOf(now) + 1) * TOKEN_WINDOW_MS - now;
}
