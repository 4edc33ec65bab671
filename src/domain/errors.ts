/**
 * One error type for everything the API can refuse. Handlers throw it; the HTTP layer renders it in
 * the wire format of the route (the service envelope, or the OpenAI / Anthropic error objects).
 * Clients match on `code`, never on `message`.
 */
export type ErrorCode =
  | 'invalid_input'
  | 'unauthorized'
  | 'forbidden'
  | 'insufficient_balance'
  | 'key_spend_cap_reached'
  | 'task_not_found'
  | 'not_found'
  | 'user_not_found'
  | 'model_not_found'
  | 'conflict'
  | 'idempotency_key_reused'
  | 'idempotency_in_progress'
  | 'version_conflict'
  | 'conversation_busy'
  | 'followup_queue_full'
  | 'steer_not_allowed'
  | 'proposal_stale'
  | 'question_not_pending'
  | 'run_not_resumable'
  | 'webhook_revoked'
  | 'webhook_disabled'
  | 'agent_runs_disabled'
  | 'invalid_attachment'
  | 'attachment_not_uploaded'
  | 'attachment_immutable'
  | 'attachment_expired'
  | 'invalid_output_schema'
  | 'storage_plan_required'
  | 'storage_quota_exceeded'
  | 'storage_quote_invalid'
  | 'source_not_found'
  | 'topups_disabled'
  | 'redeem_code_invalid'
  | 'redeem_code_already_redeemed'
  | 'payload_too_large'
  | 'uri_too_long'
  | 'rate_limited'
  | 'upstream_error'
  | 'upstream_timeout'
  | 'service_unavailable'
  | 'storage_full'
  | 'internal_error';

export const STATUS_AND_TYPE: Readonly<Record<ErrorCode, readonly [number, string]>> = {
  invalid_input: [400, 'InvalidInput'],
  unauthorized: [401, 'unauthorized'],
  forbidden: [403, 'Forbidden'],
  insufficient_balance: [402, 'PaymentRequired'],
  key_spend_cap_reached: [402, 'PaymentRequired'],
  task_not_found: [404, 'NotFound'],
  not_found: [404, 'NotFound'],
  user_not_found: [404, 'NotFound'],
  model_not_found: [404, 'NotFound'],
  conflict: [409, 'Conflict'],
  idempotency_key_reused: [409, 'Conflict'],
  idempotency_in_progress: [409, 'Conflict'],
  version_conflict: [409, 'Conflict'],
  conversation_busy: [409, 'Conflict'],
  followup_queue_full: [409, 'Conflict'],
  steer_not_allowed: [409, 'Conflict'],
  proposal_stale: [409, 'Conflict'],
  question_not_pending: [409, 'Conflict'],
  run_not_resumable: [409, 'Conflict'],
  webhook_revoked: [409, 'Conflict'],
  webhook_disabled: [409, 'Conflict'],
  agent_runs_disabled: [403, 'Forbidden'],
  invalid_attachment: [400, 'InvalidInput'],
  attachment_not_uploaded: [409, 'Conflict'],
  attachment_immutable: [409, 'Conflict'],
  attachment_expired: [410, 'Gone'],
  invalid_output_schema: [400, 'InvalidInput'],
  storage_plan_required: [402, 'PaymentRequired'],
  storage_quota_exceeded: [409, 'Conflict'],
  storage_quote_invalid: [409, 'Conflict'],
  source_not_found: [404, 'NotFound'],
  topups_disabled: [403, 'Forbidden'],
  redeem_code_invalid: [404, 'NotFound'],
  redeem_code_already_redeemed: [409, 'Conflict'],
  payload_too_large: [413, 'PayloadTooLarge'],
  uri_too_long: [414, 'UriTooLong'],
  rate_limited: [429, 'RateLimited'],
  upstream_error: [502, 'UpstreamError'],
  upstream_timeout: [504, 'UpstreamError'],
  service_unavailable: [503, 'ServiceUnavailable'],
  // The disk under the store is full (WebDAV's 507 Insufficient Storage): retried later, never corrected.
  storage_full: [507, 'InsufficientStorage'],
  internal_error: [500, 'InternalError'],
};

export interface AppErrorOptions {
  /** Overrides the status implied by the code (an upstream 429 or 503 reported as it came). */
  status?: number;
  /** Seconds, sent as `Retry-After`. */
  retryAfter?: number;
  /** Machine-readable detail, such as the name of the offending field. */
  param?: string;
  cause?: unknown;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly type: string;
  readonly retryAfter: number | undefined;
  readonly param: string | undefined;

  constructor(code: ErrorCode, message: string, options: AppErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    const [status, type] = STATUS_AND_TYPE[code];
    this.name = 'AppError';
    this.code = code;
    this.status = options.status ?? status;
    this.type = type;
    this.retryAfter = options.retryAfter;
    this.param = options.param;
  }
}

export function invalidInput(message: string, param?: string): AppError {
  return new AppError('invalid_input', message, param === undefined ? {} : { param });
}

export function isAppError(value: unknown): value is AppError {
  return value instanceof AppError;
}

/**
 * A dependency the request cannot do without (the database, the file store) cannot be reached for
 * now. Not an AppError on purpose: no code may take it for a refusal of the request (a bad input, a
 * missing balance) and act on that; the HTTP layer answers 503 with Retry-After, and a worker retries.
 */
export class DependencyUnavailableError extends Error {
  readonly dependency: 'database' | 'storage';
  /** Seconds a client should wait before trying again. */
  readonly retryAfter: number;

  constructor(dependency: 'database' | 'storage', options: { cause?: unknown; retryAfter?: number } = {}) {
    super(`the ${dependency} is unavailable for the moment`, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'DependencyUnavailableError';
    this.dependency = dependency;
    this.retryAfter = options.retryAfter ?? 2;
  }
}

/** The DependencyUnavailableError behind `error` (itself or a cause a few levels down), if any. */
export function unavailableDependency(error: unknown): DependencyUnavailableError | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    if (current instanceof DependencyUnavailableError) return current;
    current = current.cause;
  }
  return undefined;
}
