/**
 * The health of upstream keys and route entries as routing reads it (issue 32, item 3). A subject that
 * fails cools down with backoff and is skipped while cooling; once the cooling ends it is tried again
 * (half-open: its failure count stays until a success, so one more failure cools it for longer). An
 * auth or quota failure disables the subject until the operator, or a passing provider test, enables
 * it again.
 *
 * Reads never wait: `state` answers from this process's mirror. Reports update the mirror at once and
 * reach the shared store (Redis) in the background; other processes learn of them by message and by a
 * periodic refresh. Without Redis the board is this process's memory alone.
 */

/** What routing sees of a subject. */
export type UpstreamState = 'healthy' | 'cooling' | 'disabled';

/**
 * How a call failed, for the board: `transient` (timeout, connection error, 5xx), `rate_limited`
 * (429: cools for Retry-After when given), `auth` (401, 403: disables), `quota` (402, or a 429 that
 * says the account's credit or quota is spent: disables).
 */
export type UpstreamFailureKind = 'transient' | 'rate_limited' | 'auth' | 'quota';

export interface UpstreamFailure {
  kind: UpstreamFailureKind;
  /** In words, for the operator; never holds a secret (adapters' messages do not). */
  message: string;
  /** A Retry-After the upstream gave, in milliseconds. */
  retryAfterMs?: number;
}

export interface UpstreamHealthRecord {
  subject: string;
  state: UpstreamState;
  /** Failures since the last success. */
  failures: number;
  /** When the cooling ends (epoch ms); null when not cooling. */
  coolingUntil: number | null;
  /** Why it is disabled (auth, quota, operator); null when not disabled. */
  disabledReason: string | null;
  lastError: string | null;
  lastErrorAt: number | null;
  lastSuccessAt: number | null;
}

export interface UpstreamHealthBoard {
  /** The subject's state now, from this process's mirror; an unknown subject is healthy. Never waits. */
  state(subject: string, now?: number): UpstreamState;
  /** The mirror's record of a subject; undefined when nothing was recorded. */
  record(subject: string, now?: number): UpstreamHealthRecord | undefined;
  /** Every recorded subject whose name starts with `prefix` ('' for all). */
  records(prefix: string, now?: number): UpstreamHealthRecord[];
  /** A call succeeded: the subject is healthy again and its failures are forgotten (a disabled subject stays disabled). */
  succeeded(subject: string, now?: number): void;
  /** A call failed: cools the subject with backoff, or disables it (auth, quota). */
  failed(subject: string, failure: UpstreamFailure, now?: number): void;
  /** Disables a subject by hand (the operator); `reason` is shown back. */
  disable(subject: string, reason: string, now?: number): Promise<void>;
  /** Makes a subject healthy again (the operator, or a passing test): cooling, failures and disabling are cleared. */
  enable(subject: string, now?: number): Promise<void>;
  /** Subscribes and loads the shared state (resolves within a second when the shared store is away). */
  start(): Promise<void>;
  close(): Promise<void>;
}
