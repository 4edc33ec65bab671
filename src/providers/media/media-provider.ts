import type { GuardedHttpClient } from '../../adapters/outbound/guarded-http-client.ts';
import type { MeasuredMedia, OutputSpec, ValidatedInput } from '../../domain/catalog/catalog.types.ts';
import type { ProviderFactory } from '../provider-registry.ts';

/**
 * The contract between the task runner and an upstream API style (kie, fal, replicate, openai,
 * switchboard, local, …). Adapters never throw for expected failures: every outcome is a value, and an
 * error says whether another try (here or on the next route) can help. Failover reads only `retryable`.
 */
export interface ProviderError {
  message: string;
  /** True when the same request might succeed later or elsewhere (timeouts, 429, 5xx, upstream capacity). */
  retryable: boolean;
  /** The upstream HTTP status, when there was one. */
  status?: number;
  /** Why, as a closed list (for logs, metrics and provider health); failover still reads only `retryable`. */
  code?: ProviderErrorCode;
}

/**
 * `network`: no answer (refused, reset, DNS); `timeout`: no answer in time; `rate_limited` and
 * `unavailable`: the upstream is busy or down; `auth`: our key is refused; `credits`: our balance there
 * is spent; `not_found`: unknown model, endpoint or job; `invalid_request`: the upstream refused the
 * request's content; `content_policy`: moderation refused prompt or media; `generation_failed`: the job
 * ran and failed; `unsupported`: this route cannot do what the input asks; `protocol`: an answer we
 * cannot read.
 */
export type ProviderErrorCode =
  | 'network'
  | 'timeout'
  | 'rate_limited'
  | 'unavailable'
  | 'auth'
  | 'credits'
  | 'not_found'
  | 'invalid_request'
  | 'content_policy'
  | 'generation_failed'
  | 'canceled'
  | 'unsupported'
  | 'protocol';

export type ResultFileType = 'image' | 'video' | 'music';

/** A file of a finished upstream job: a URL to download, or bytes the API returned inline. */
export interface UpstreamFile {
  fileType: ResultFileType;
  url?: string;
  data?: Buffer;
  /** As the upstream declares it; checked against the bytes when we copy the file. */
  contentType?: string;
}

/**
 * One song take in `output.tracks` (SPEC: title, duration, lyrics, tags, cover image URLs, audioId),
 * in the order of `files`. Cover URLs may be upstream URLs or `data:` URIs: the gateway copies them to
 * its own storage and rewrites them, like the files.
 */
export interface MusicTrackOutput {
  audioId: string;
  title: string;
  /** Seconds. */
  duration: number;
  lyrics: string | null;
  tags: string | null;
  coverImageUrls: string[];
}

export interface UpstreamResult {
  files: UpstreamFile[];
  /** Structured output: music `tracks` (title, duration, lyrics, tags, cover image URLs, audioId) in the order of `files`, or the full result of a data action. */
  output?: Record<string, unknown> | null;
}

export interface MediaJob {
  /** Our task id; adapters that can send a client reference (idempotency key, metadata) use `attemptId`. */
  taskId: string;
  attemptId: string;
  /** Our model id and the upstream's name for it on this route. */
  model: string;
  upstreamModel: string;
  family: string;
  input: ValidatedInput;
  measured: MeasuredMedia[];
  /** What the request should produce (sizes, durations, counts), from the catalog. */
  outputSpec: OutputSpec;
  /** Where the upstream may call us back for this attempt (already carrying an unguessable token). */
  callbackUrl: string;
  /** For follow-up actions: the upstream ids of the parent tasks on this provider, by our task id. */
  parents: Record<string, { upstreamId: string; output: Record<string, unknown> | null }>;
  signal: AbortSignal;
}

export type SubmitOutcome =
  /** The upstream took the job; poll it (or wait for the callback). */
  | { kind: 'accepted'; upstreamId: string; pollAfterMs?: number }
  /** A synchronous API answered with the result. */
  | { kind: 'completed'; upstreamId?: string; result: UpstreamResult }
  /** The upstream refused or failed the job; nothing is running there. */
  | { kind: 'failed'; error: ProviderError }
  /** We do not know whether the upstream took the job (the request timed out or the connection broke after sending). */
  | { kind: 'unknown'; error: ProviderError };

export type PollOutcome =
  /**
   * Still running. `upstreamId`, when given, is where the job continues from now on (a follow-up job
   * the upstream started, such as kie's 4K upgrade): the runner stores it and polls it next.
   */
  | { kind: 'pending'; pollAfterMs?: number; upstreamId?: string }
  | { kind: 'completed'; result: UpstreamResult }
  | { kind: 'failed'; error: ProviderError };

export type ReconcileOutcome =
  /** The upstream has our job under this id: continue by polling it. */
  | { kind: 'found'; upstreamId: string }
  /** The upstream confirms it never received the job: safe to move on. */
  | { kind: 'absent' }
  /** The upstream cannot tell (no lookup by reference): wait for a callback, then give up on this route. */
  | { kind: 'unknowable' }
  | { kind: 'failed'; error: ProviderError };

export type CancelOutcome =
  /** The vendor confirms the job stopped before it finished (it will not produce a result). */
  | { kind: 'cancelled' }
  /** The vendor passed the request on to a job already running, which may still finish. */
  | { kind: 'requested' }
  /**
   * The job already runs there and the vendor bills a run that is stopped (Replicate's `processing`):
   * not stopped, so that what the vendor bills is what the customer is charged for.
   */
  | { kind: 'running' }
  /** The job had already ended there (succeeded or failed): nothing to stop. */
  | { kind: 'too_late' }
  /** No usable answer, or the vendor refused: the job goes on as if nothing was asked. */
  | { kind: 'failed'; error: ProviderError };

/** What a route is asked to make, as far as a check before dispatch needs it. */
export type RouteRequest = Pick<MediaJob, 'model' | 'upstreamModel' | 'family' | 'input'>;

/** Why a route cannot serve a request as asked: the input field at fault and a sentence that says why. */
export interface RouteRefusal {
  field: string;
  message: string;
  /**
   * `input` (the default): this request asks for something the route's API lacks; when no route is left
   * the client gets a 400 naming the field. `route`: the route cannot serve this model at all as
   * configured (a key or a name the operator must give); when no route is left, a 503.
   */
  scope?: 'input' | 'route';
}

/** What an upstream callback told us, after the adapter verified it. */
export interface CallbackNotice {
  upstreamId: string | undefined;
  /** Present when the callback carries a trustworthy final result; otherwise the runner polls. */
  outcome?: PollOutcome;
}

export interface MediaProvider {
  /** The configured provider name (`kie-main`, `local`, …). */
  readonly name: string;
  /** The API style (`kie`, `fal`, …). */
  readonly type: string;
  submit(job: MediaJob): Promise<SubmitOutcome>;
  /**
   * Pure, no I/O: a reason this route cannot serve the request (an option its API does not document),
   * or undefined. Create drops refusing routes and answers 400 naming the field when none is left, so
   * nothing is charged; submit refuses the same requests as `unsupported` (retryable) before sending.
   */
  refusal?(request: RouteRequest): RouteRefusal | undefined;
  poll(job: MediaJob, upstreamId: string): Promise<PollOutcome>;
  /** Asks the upstream whether it received a submit whose outcome we do not know. */
  reconcile(job: MediaJob): Promise<ReconcileOutcome>;
  /**
   * Asks the upstream to stop job `upstreamId`, only where the vendor's public API has a cancel call.
   * The outcome says what the vendor answered; it never throws for an expected failure.
   */
  cancel?(job: MediaJob, upstreamId: string): Promise<CancelOutcome>;
  /**
   * Whether the upstream job `upstreamId` is the one this attempt submitted, by the vendor's own record
   * of its request: asked before a callback's job is adopted for an attempt whose submit went
   * unanswered (a callback may name another job). `unknown`: the record could not be read or says
   * nothing. Absent: the vendor's callbacks are trusted as they are (signed per attempt).
   */
  ownsJob?(job: MediaJob, upstreamId: string): Promise<'ours' | 'foreign' | 'unknown'>;
  /** Verifies and reads a callback for this attempt; undefined when it is not a valid callback. */
  parseCallback?(request: { headers: Record<string, string | undefined>; rawBody: Buffer }): CallbackNotice | undefined;
  /** First poll delay after an accepted submit, when the outcome does not say. */
  readonly defaultPollMs: number;
  /** Releases pooled connections (graceful shutdown, tests). */
  close?(): Promise<void>;
}

/** One configured media provider, as its adapter reads it. */
export interface MediaProviderFactoryOptions {
  name: string;
  baseUrl: string | undefined;
  apiKey: string | undefined;
  timeoutMs: number;
  options: Record<string, unknown>;
}

/** What the composition root shares with the media adapters besides their own config. */
export interface MediaProviderDeps {
  /** The guarded client, for styles that fetch user media themselves (OpenAI image edits); a strict one is made when absent. */
  guardedHttp?: GuardedHttpClient;
}

export type MediaProviderFactory = ProviderFactory<MediaProviderFactoryOptions, MediaProviderDeps, MediaProvider>;
