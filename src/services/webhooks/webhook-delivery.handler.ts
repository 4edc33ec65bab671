import type { Logger } from 'pino';
import type { GuardedRequest, GuardedResponse } from '../../adapters/outbound/guarded-http-client.ts';
import { isOutboundUrlError, type OutboundFailure } from '../../adapters/outbound/outbound-url-error.ts';
import { assertAllowedPort, DEFAULT_WEBHOOK_PORTS } from '../../adapters/outbound/url-policy.ts';
import type { RateLimitSetting } from '../../config/config.types.ts';
import type { RateLimiter } from '../../ports/rate-limiter.port.ts';
import type { UnitOfWork } from '../../ports/unit-of-work.port.ts';
import type { WebhookDeliveryRow, WebhookStore } from '../../ports/webhook-store.port.ts';
import { newId } from '../../domain/ids.ts';
import type { JobHandler, JobOutcome, WorkQueue } from '../../ports/work-queue.port.ts';
import { JOB_QUEUES, webhookTarget } from '../../domain/jobs/job-catalog.ts';
import { failureCountsAgainstTarget, targetPauseMs } from './webhook-fairness.ts';
import { DEFAULT_RETRY_SCHEDULE_MS, nextAttemptAt, parseRetryAfter } from './webhook-schedule.ts';
import { WebhookSecretService } from './webhook-secret.service.ts';
import { signedWebhookHeaders, WEBHOOK_USER_AGENT } from './webhook-signature.ts';

/** The part of the guarded client (decision 9) a delivery uses. */
export interface WebhookHttpClient {
  request(req: GuardedRequest): Promise<GuardedResponse>;
}

/** The secrets that sign a delivery now, current first; empty when there is none (the delivery fails). */
export type WebhookSecretResolver = (delivery: { userId: string; destinationId: string | null }) => Promise<string[]>;

export type WebhookAttemptOutcome = 'delivered' | 'retry' | 'failed';

export interface WebhookMetrics {
  webhookAttempts: { inc(labels: { outcome: WebhookAttemptOutcome }): void };
}

export interface WebhookHandlerDeps {
  webhooks: WebhookStore;
  uow: UnitOfWork;
  /** The guarded client, built with the operator's allowPrivateUrls. */
  client: WebhookHttpClient;
  logger: Logger;
  metrics?: WebhookMetrics;
  /** Clock for the schedule and the `webhook-timestamp` (default Date.now). */
  now?: () => number;
  /** Delay before each attempt (DEFAULT_RETRY_SCHEDULE_MS); tests pass milliseconds. */
  schedule?: readonly number[];
  /** For the jitter (default Math.random). */
  random?: () => number;
  /** Default: the user's webhook secret(s) for deliveries without a destination. */
  secrets?: WebhookSecretResolver;
  /** Whole exchange per attempt (default 10 s). */
  timeoutMs?: number;
  /** The receiver's answer is read up to this and discarded (default 64 KiB). */
  maxResponseBytes?: number;
  userAgent?: string;
  /** Ports a destination may name (config.webhooks.ports); default 443 and 80. */
  ports?: readonly number[] | 'any';
  /**
   * Attempts per user per window (config.limits.webhookDeliveriesPerUser): one over it waits for the
   * next window, counting no attempt; none is dropped.
   */
  perUser?: { limiter: RateLimiter; limit: RateLimitSetting };
  /**
   * The breaker of destination origins (the queue's lane targets): each attempt's outcome is
   * reported, and an origin that keeps failing is paused, so its deliveries are not claimed.
   */
  targets?: Pick<WorkQueue, 'targetSucceeded' | 'targetFailed'>;
  /** After each attempt is recorded (agent destinations track their health here). */
  onAttempt?: (delivery: { destinationId: string | null; userId: string }, outcome: WebhookAttemptOutcome, statusCode: number | null, now: number) => Promise<void>;
}

const DONE: JobOutcome = { kind: 'done' };
const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024;
/** When the row is busy (another worker mid-attempt after a lost lease), look again this much later. */
const BUSY_RECHECK_MS = 15_000;
/** How long past its time-out an attempt's exchange is still taken to be in flight (the write of its result). */
const IN_FLIGHT_MARGIN_MS = 5_000;
export const UNFINISHED_ATTEMPT = 'no result recorded: the attempt is in progress, or the worker stopped during it';
/** Refusals that no retry can change: the URL itself is not deliverable. */
const PERMANENT_FAILURES: ReadonlySet<OutboundFailure> = new Set(['invalid_url', 'scheme', 'private_address', 'port']);

interface AttemptResult {
  statusCode: number | null;
  /** Null on success. */
  error: string | null;
  retryAfterMs?: number | undefined;
  /** No further attempt can succeed (410 Gone, a refused destination). */
  final: boolean;
}

/**
 * The worker-pool handler of `webhook` jobs: one attempt per run.
 *
 * Attempt n is claimed by a compare-and-set on the delivery's attempt count, together with an attempt
 * row, before anything is sent; the result is written with the same guard. Each attempt is signed
 * afresh (its own timestamp) under the secrets active at that moment, and keeps the delivery's
 * `webhook-id`. 2xx: delivered. 410: failed, not retried. A refused destination (private address,
 * bad URL): failed at once. Anything else: the next attempt of the schedule (jittered; not before the
 * receiver's Retry-After, within a bound), and `failed` after the last one. No redirect is followed.
 */
export function createWebhookJobHandler(deps: WebhookHandlerDeps): JobHandler {
  const now = deps.now ?? Date.now;
  const schedule = deps.schedule ?? DEFAULT_RETRY_SCHEDULE_MS;
  if (schedule.length === 0) throw new RangeError('the webhook schedule needs at least one attempt');
  const secretService = new WebhookSecretService(deps, { now });
  const resolveSecrets: WebhookSecretResolver =
    deps.secrets ?? (async (delivery) => (delivery.destinationId === null ? secretService.signingSecrets(delivery.userId) : []));
  const timeoutMs = deps.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxBytes = deps.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const userAgent = deps.userAgent ?? WEBHOOK_USER_AGENT;
  const { webhooks, uow, logger } = deps;

  return async (job) => {
    const delivery = await webhooks.findDelivery(uow.direct, job.refId);
    if (delivery?.status !== 'pending') return DONE;
    const startedAt = now();
    // Woken before its time (say, by a worker that lost its lease and rescheduled late): wait for it.
    if (delivery.next_attempt_at !== null && delivery.next_attempt_at > startedAt + 1000) return { kind: 'again', runAt: delivery.next_attempt_at };
    const capped = await overUserCap(delivery.user_id, startedAt);
    if (capped !== undefined) return { kind: 'again', runAt: capped };

    const attemptNo = delivery.attempts + 1;
    if (attemptNo > schedule.length) {
      await webhooks.endDelivery(uow.direct, delivery.id, delivery.attempts, { status: 'failed', next_attempt_at: null, last_error: `gave up after ${delivery.attempts} attempts` });
      return DONE;
    }
    const attemptId = newId('wha', startedAt);
    // The row is held for this attempt until its exchange must have ended: a second worker running
    // the same job (its lease lost under load) sees a future next_attempt_at and waits, instead of
    // sending attempt n+1 while attempt n is still in flight (a receiver would accept both).
    const claimed = await uow.transaction((tx) =>
      webhooks.claimAttempt(tx, delivery.id, delivery.attempts, startedAt + timeoutMs + IN_FLIGHT_MARGIN_MS, {
        id: attemptId,
        delivery_id: delivery.id,
        attempt_no: attemptNo,
        started_at: startedAt,
        duration_ms: 0,
        status_code: null,
        error: UNFINISHED_ATTEMPT,
      }),
    );
    if (!claimed) return { kind: 'again', runAt: startedAt + BUSY_RECHECK_MS };

    const clockStart = performance.now();
    const result = await attempt(delivery, startedAt);
    const durationMs = Math.round(performance.now() - clockStart);
    const endedAt = now();

    let outcome: WebhookAttemptOutcome;
    let retryAt: number | undefined;
    if (result.error === null) outcome = 'delivered';
    else if (result.final) outcome = 'failed';
    else {
      retryAt = nextAttemptAt({ attemptsMade: attemptNo, now: endedAt, schedule, retryAfterMs: result.retryAfterMs, ...(deps.random ? { random: deps.random } : {}) });
      outcome = retryAt === undefined ? 'failed' : 'retry';
    }

    const lastError = outcome === 'failed' && !result.final ? `${result.error}; gave up after ${attemptNo} attempts` : result.error;
    await uow.transaction(async (tx) => {
      await webhooks.endAttempt(tx, attemptId, { duration_ms: durationMs, status_code: result.statusCode, error: result.error });
      await webhooks.endDelivery(tx, delivery.id, attemptNo, {
        status: outcome === 'retry' ? 'pending' : outcome,
        next_attempt_at: retryAt ?? null,
        last_status_code: result.statusCode,
        last_error: lastError,
        delivered_at: outcome === 'delivered' ? endedAt : null,
      });
    });
    deps.metrics?.webhookAttempts.inc({ outcome });
    await reportTarget(delivery, result, endedAt);
    try {
      await deps.onAttempt?.({ destinationId: delivery.destination_id, userId: delivery.user_id }, outcome, result.statusCode, endedAt);
    } catch (error) {
      logger.warn({ err: error, deliveryId: delivery.id }, 'recording a webhook destination\'s health failed');
    }
    const fields = { deliveryId: delivery.id, taskId: delivery.task_id, attempt: attemptNo, status: result.statusCode, ms: durationMs };
    if (outcome === 'delivered') logger.info(fields, 'webhook delivered');
    else if (outcome === 'failed') logger.warn({ ...fields, error: lastError }, 'webhook delivery failed; no more attempts');
    else logger.info({ ...fields, error: result.error, retryAt: new Date(retryAt ?? 0).toISOString() }, 'webhook attempt failed; will retry');
    return outcome === 'retry' && retryAt !== undefined ? { kind: 'again', runAt: retryAt } : DONE;
  };

  /** Tells the breaker how the origin did; a failure to record it is logged, never the job's failure. */
  async function reportTarget(delivery: WebhookDeliveryRow, result: AttemptResult, at: number): Promise<void> {
    if (!deps.targets) return;
    const target = webhookTarget(delivery.user_id, delivery.url);
    try {
      if (result.error === null) await deps.targets.targetSucceeded(JOB_QUEUES.webhooks, target);
      else if (failureCountsAgainstTarget(result)) {
        const state = await deps.targets.targetFailed(JOB_QUEUES.webhooks, target, at, targetPauseMs);
        if (state.pausedUntil !== undefined && state.pausedUntil > at) {
          logger.warn({ target, failures: state.failures, pausedUntil: new Date(state.pausedUntil).toISOString() }, 'webhook destination keeps failing; its deliveries wait');
        }
      }
    } catch (error) {
      logger.warn({ err: error, deliveryId: delivery.id }, 'recording a webhook destination\'s failures failed');
    }
  }

  /** When the user is over the delivery cap: the time to try again (spread over a second), else undefined. */
  async function overUserCap(userId: string, at: number): Promise<number | undefined> {
    if (!deps.perUser) return undefined;
    const verdict = await deps.perUser.limiter.hit(`webhook:user:${userId}`, deps.perUser.limit);
    if (verdict.allowed) return undefined;
    return at + verdict.retryAfterMs + Math.floor((deps.random ?? Math.random)() * 1000);
  }

  async function attempt(delivery: WebhookDeliveryRow, startedAt: number): Promise<AttemptResult> {
    const secrets = await resolveSecrets({ userId: delivery.user_id, destinationId: delivery.destination_id });
    if (secrets.length === 0) return { statusCode: null, error: 'no signing secret for this delivery', final: true };
    const headers = signedWebhookHeaders({
      messageId: delivery.message_id,
      timestampSeconds: Math.floor(startedAt / 1000),
      body: delivery.payload_json,
      secrets,
      userAgent,
    });
    let response: GuardedResponse;
    try {
      // The port rule is checked again here: a delivery made before the operator narrowed it is refused.
      assertAllowedPort(new URL(delivery.url), deps.ports ?? DEFAULT_WEBHOOK_PORTS);
      response = await deps.client.request({
        url: delivery.url,
        method: 'POST',
        headers: { ...headers },
        body: delivery.payload_json,
        timeoutMs,
        maxBytes,
        maxRedirects: 0,
      });
    } catch (error) {
      if (isOutboundUrlError(error)) {
        const final = PERMANENT_FAILURES.has(error.reason);
        const prefix = error.reason === 'private_address' || error.reason === 'port' ? 'destination refused' : error.reason;
        const hint = error.reason === 'too_large' ? ` (the answer is read up to ${maxBytes} bytes; reply with a short body)` : '';
        return { statusCode: null, error: `${prefix}: ${error.message}${hint}`, final };
      }
      return { statusCode: null, error: `request failed: ${error instanceof Error ? error.message : String(error)}`, final: false };
    }
    const status = response.status;
    if (status >= 200 && status <= 299) return { statusCode: status, error: null, final: false };
    if (status === 410) return { statusCode: status, error: 'HTTP 410 Gone: the receiver asked not to be called again; not retried', final: true };
    const retryAfterMs = parseRetryAfter(response.headers['retry-after'], now());
    const redirect = status >= 300 && status <= 399 ? ' (redirects are not followed: the webhook URL itself must answer 2xx)' : '';
    return { statusCode: status, error: `HTTP ${status}${redirect}`, retryAfterMs, final: false };
  }
}

/**
 * The give-up hook of `webhook` jobs (the poison-job rule, src/domain/jobs/job-catalog.ts): a delivery
 * whose handler keeps failing unexpectedly (not a receiver's failure: those follow the schedule) is
 * marked failed, dead, once (compare-and-set on `pending`).
 */
export function createWebhookGiveUp(ports: Pick<WebhookHandlerDeps, 'webhooks' | 'uow'>): (job: { refId: string }) => Promise<JobOutcome> {
  return async (job) => {
    await ports.webhooks.failPendingDelivery(ports.uow.direct, job.refId, 'the gateway failed while delivering this webhook (an internal error, repeated); not retried');
    return DONE;
  };
}
