/**
 * Text generation for both wire protocols (decision 11): checks the model, caps the output, holds the
 * most the request can cost, tries the model's routes in order until one answers (failover only
 * before anything reached the client), and settles the exact cost from the upstream's usage.
 *
 * Two short transactions per request: the hold (a reservation on the account and the request's hold
 * row) before any upstream call, and the settlement (the hold row deleted by compare-and-set, the
 * hold released, the exact cost charged as one `chat_charge` ledger entry, the request's record
 * written) when the answer ended, however it ended.
 * A stream is settled before its final event is handed on, so a client that has read the end of the
 * answer finds its balance already final; a whole answer is settled just after it is handed on (its
 * client does not wait for the second transaction).
 */
import { assertChatUrlsPublic, type ChatUrlPolicy } from './chat-input-urls.ts';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Schema } from '../../adapters/db/schema.ts';
import type { Metrics } from '../../adapters/metrics/metrics.ts';
import type { RouteTarget } from '../../config/config.types.ts';
import type { Catalog } from '../../domain/catalog/catalog.ts';
import type { ChatModelDefinition } from '../../domain/catalog/catalog.types.ts';
import { assertLongContextBillable, assertPriceOptionsBillable, billedServiceTier, costMicro, holdMicro } from '../../domain/chat/chat-billing.ts';
import type { CpuPool } from '../../ports/cpu-pool.port.ts';
import { admitPrompt } from './prompt-admission.ts';
import { type BoundedUsage, boundCharge, boundChatUsage, outputBytesOf } from '../../domain/chat/usage-bounds.ts';
import type { ChatProtocol, ChatRequest } from '../../domain/chat/chat-request.types.ts';
import type { ChatResponse, ChatStreamEvent, ChatUsage, StopReason } from '../../domain/chat/chat-response.types.ts';
import { collectChatStream, responseToEvents } from '../../domain/chat/chat-stream.collector.ts';
import { chatErrorCodeForStatus } from '../../domain/chat/chat-wire.helpers.ts';
import { estimatePromptTokens } from '../../domain/chat/prompt-size.estimator.ts';
import { applySamplingRules } from '../../domain/chat/sampling-rules.ts';
import { AppError, isAppError } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import { microToUsd } from '../../domain/money.ts';
import type { ChatUpstreamError, ChatUpstreamResult } from '../../providers/chat/chat-provider.ts';
import { appErrorFromUpstream } from '../../providers/chat/upstream-error.ts';
import type { ProviderHealth } from '../upstreams/provider-health.ts';
import type { ChatLedger, SettleResult } from '../../ports/ledger.port.ts';
import { isInfrastructureFault } from '../../adapters/resilience/infrastructure-fault.ts';
import { type ChatRequestOutcome, deferChatSettlement, type NewChatRequest, touchChatHolds } from './chat-records.ts';
import type { UpstreamAnomaly, UpstreamAnomalyLog } from '../../ports/upstream-anomalies.port.ts';
import type { ChatRouter } from './chat-router.ts';
import { endUpstreamSpan, startUpstreamSpan } from './chat-spans.ts';
import { NOOP_TRACER, type Span, type Tracer } from '../../ports/tracer.port.ts';

export interface ChatServiceDeps {
  db: Kysely<Schema>;
  catalog: Catalog;
  router: ChatRouter;
  /** Cap on max_tokens / max_completion_tokens (config.chat.maxOutputTokens). */
  maxOutputTokens: number;
  /**
   * How long the upstream call of a client that left is still read for its usage
   * (config.chat.upstreamAfterLeaveMs); then it is cancelled. 5 minutes when not given.
   */
  upstreamAfterLeaveMs?: number;
  metrics: Metrics;
  health: ProviderHealth;
  logger: Logger;
  /** The hold and the settlement of each request (src/adapters/db/ledger/chat-ledger-factory.ts picks the engine's). */
  ledger: ChatLedger;
  /** How often the rows of running requests are marked alive for the chat_settle job; 60 s. */
  heartbeatMs?: number;
  /** The address policy of URLs in the request (image_url, source.url); none: not checked. */
  urlPolicy?: () => ChatUrlPolicy;
  /** A span per upstream call with the GenAI attributes (chat-spans.ts); none: the no-op tracer. */
  tracer?: Tracer;
  /** Where usage corrected before billing is recorded for the operator (usage-bounds.ts); none: logged only. */
  anomalies?: UpstreamAnomalyLog;
  /** Counts a prompt whose estimate is above the context window (prompt-admission.ts); none: counted here. */
  cpu?: CpuPool;
}

export interface ChatCall {
  userId: string;
  apiKeyId: string | undefined;
  /** The wire protocol the client speaks. */
  protocol: ChatProtocol;
  request: ChatRequest;
  /**
   * Aborted when the client goes away (the route ties it to the connection), and by the service on
   * shutdown. What it does to the upstream call is `onAbort`'s.
   */
  abort: AbortController;
  /**
   * `finish` (the default: a client that left): nothing more is handed to the caller, but the
   * upstream call goes on, read silently for at most `upstreamAfterLeaveMs`, so that the usage it
   * reports is what is charged (the upstream bills it whether we listen or not). `cancel` (an agent
   * run stopped, which must stop at once): the upstream call is cancelled and what was observed is
   * charged, at least the prompt estimate once the request was sent.
   */
  onAbort?: 'finish' | 'cancel';
  /**
   * Aborted to stop the request at once whatever `onAbort` says (a revoked key, an ended session: its
   * owner wants the spending stopped): the upstream call is cancelled and what was observed charged.
   */
  stop?: AbortSignal;
  /** The request's id (`chat_…`), when the caller must know it before the call (an agent run records it first). */
  id?: string;
  /**
   * The most this request may be charged (an agent run's commitment): a reported usage above it is
   * charged at this amount, so a run's settled charges never pass what it committed.
   */
  maxChargeMicro?: number;
}

/** What a request will hold: its prompt estimate, its output cap and the money they can cost. */
export interface ChatQuote {
  promptTokens: number;
  maxOutputTokens: number;
  holdMicro: number;
}

export type ChatAnswer = (
  /** Settled just after (the settlement is queued behind the reply); `response.id` and `response.model` are ours. */
  | { kind: 'response'; id: string; response: ChatResponse; ended: Promise<void> }
  /**
   * Settled when its terminal event (message_end or error) is reached, before that event is yielded;
   * for a client that left, once its upstream call has ended, after the error event. `ended` resolves
   * when it is settled (the request no longer runs anywhere).
   */
  | { kind: 'stream'; id: string; events: AsyncIterable<ChatStreamEvent>; ended: Promise<void> }
) & {
  /** Sampling fields the model refuses that were left out of the request (sampling-rules.ts), as the client named them. */
  droppedFields?: readonly string[];
};

type FinalStatus = ChatRequestOutcome['status'];

interface Settlement {
  status: FinalStatus;
  /** What to bill, as reported (bounded by the settlement: usage-bounds.ts); undefined charges nothing. */
  usage: ChatUsage | undefined;
  /** UTF-8 bytes of the output that reached us: the estimate of an output count that is not a number. */
  outputSeen?: number;
  stopReason?: StopReason;
  error?: { code: string; message: string };
}

const NO_USAGE: ChatUsage = { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, cacheCreationTokens: 0 };
/**
 * Waits before each new try of a settlement that met a store fault: 2.1 s in all, about what a
 * PostgreSQL failover or a pool's reconnect takes. A stream's last event waits for its settlement.
 */
export const SETTLE_RETRY_DELAYS_MS = [100, 400, 1_600];
/** How long a departed client's upstream call is still read by default: a long answer at a slow vendor. */
const DEFAULT_UPSTREAM_AFTER_LEAVE_MS = 300_000;

export class ChatService {
  readonly #deps: ChatServiceDeps;
  /** Requests of this process between hold and settlement. */
  readonly #running = new Map<string, { cancel(): void }>();
  #heartbeat: NodeJS.Timeout | undefined;
  #idle: Array<() => void> = [];
  #closing = false;
  readonly #ledger: ChatLedger;

  constructor(deps: ChatServiceDeps) {
    this.#deps = deps;
    this.#ledger = deps.ledger;
  }

  get runningRequests(): number {
    return this.#running.size;
  }

  /**
   * Runs one request. Throws an AppError for what the client must fix (400), an insufficient balance
   * (402, before any upstream call) or an upstream failure on every route (its status, Retry-After kept).
   */
  async complete(call: ChatCall): Promise<ChatAnswer> {
    if (this.#closing) throw new AppError('service_unavailable', 'The server is shutting down; try again.', { retryAfter: 1 });
    const model = this.#model(call);
    const request = call.request;
    if (this.#deps.urlPolicy) assertChatUrlsPublic(request, this.#deps.urlPolicy());
    assertPriceOptionsBillable(model.id, model, request.priceOptions);
    const dropped = applySamplingRules(model.sampling, request, call.protocol);
    request.maxOutputTokens = this.#outputCap(model, request);
    const promptTokens = estimatePromptTokens(request);
    const counting = admitPrompt(model, request, promptTokens, this.#deps.cpu);
    if (counting) await counting;
    const exchange = new ChatExchange(this, call, model, promptTokens, this.#deps.upstreamAfterLeaveMs ?? DEFAULT_UPSTREAM_AFTER_LEAVE_MS);
    await this.#hold(exchange);
    this.#running.set(exchange.id, exchange);
    this.#startHeartbeat();
    try {
      const answer = await exchange.run(this.#deps.router.routes(model.id));
      return dropped ? { ...answer, droppedFields: dropped } : answer;
    } catch (error) {
      await exchange.settle({ status: call.abort.signal.aborted ? 'client_closed' : 'failed', usage: undefined, error: errorSummary(error) });
      throw error;
    }
  }

  /**
   * What `complete` would hold for this request (the same computation), without calling anything:
   * an agent run checks it against its limit before it commits to the call.
   */
  quote(call: Pick<ChatCall, 'protocol' | 'request'>): ChatQuote {
    const model = this.#model(call);
    assertPriceOptionsBillable(model.id, model, call.request.priceOptions);
    applySamplingRules(model.sampling, call.request, call.protocol);
    const maxOutputTokens = this.#outputCap(model, call.request);
    const promptTokens = estimatePromptTokens({ ...call.request, maxOutputTokens });
    assertLongContextBillable(model.id, model, promptTokens, call.request.priceOptions);
    return { promptTokens, maxOutputTokens, holdMicro: holdMicro(model, promptTokens, maxOutputTokens, call.request.priceOptions) };
  }

  #outputCap(model: ChatModelDefinition, request: ChatRequest): number {
    const cap = this.#deps.maxOutputTokens;
    return Math.min(request.maxOutputTokens ?? Math.min(model.maxOutputTokens, cap), cap);
  }

  /** Stops taking requests; waits up to `graceMs` for running ones, then cancels them (they settle as client_closed). */
  async close(graceMs = 10_000): Promise<void> {
    this.#closing = true;
    if (this.#running.size > 0) {
      const idle = new Promise<void>((resolve) => this.#idle.push(resolve));
      let timer: NodeJS.Timeout | undefined;
      const grace = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, graceMs);
      });
      await Promise.race([idle, grace]);
      clearTimeout(timer);
      for (const exchange of this.#running.values()) exchange.cancel();
      if (this.#running.size > 0) await idle;
    }
    this.#stopHeartbeat();
    await this.#ledger.close();
  }

  #model(call: Pick<ChatCall, 'protocol' | 'request'>): ChatModelDefinition {
    const id = call.request.model;
    const model = this.#deps.catalog.chat(id);
    if (!model) {
      if (this.#deps.catalog.media(id)) {
        throw new AppError('invalid_input', `${id} is a media model: create it with POST /api/v1/generation/create.`, { param: 'model' });
      }
      throw new AppError('invalid_input', `The model ${JSON.stringify(id)} does not exist; GET /api/v1/models lists the text models.`, { param: 'model' });
    }
    if (!model.protocols.includes(call.protocol)) {
      const other = call.protocol === 'anthropic' ? 'POST /api/v1/chat/completions' : 'POST /api/v1/messages';
      throw new AppError('invalid_input', `The model ${id} is not served over this protocol; use ${other}.`, { param: 'model' });
    }
    return model;
  }

  /** One transaction: the guarded reservation on the account (402 when it does not fit) and the hold's row. */
  async #hold(exchange: ChatExchange): Promise<void> {
    const { model } = exchange;
    try {
      await this.#ledger.hold(exchange.record);
    } catch (error) {
      if (isAppError(error) && error.code === 'insufficient_balance') {
        const maxOut = exchange.maxOutputTokens;
        throw new AppError(
          'insufficient_balance',
          `Insufficient balance: this request reserves up to USD ${microToUsd(exchange.holdMicro)} (a prompt of at most ${exchange.promptTokens} tokens and ${maxOut} output tokens at ${model.id}'s prices) until it settles at its exact cost. Lower max_tokens if that is more than you need.`,
        );
      }
      throw error;
    }
  }

  /**
   * The settlement transaction; called once per exchange. Never throws: a failure leaves the hold to
   * the chat_settle job, which releases it whole (the request is then free), so a fault of the store
   * (a dropped connection, a failover, a serialization conflict) is retried first, after
   * SETTLE_RETRY_DELAYS_MS. A retry after a commit whose answer was lost finds the hold taken and
   * moves no money: the settlement deletes the hold row by compare-and-set. `linger`: nobody waits for it (a whole answer already sent), so it may share
   * the commit of other ledger operations (the chat ledger's group commit, ledger-queue.ts).
   */
  async settle(exchange: ChatExchange, s: Settlement, linger = false): Promise<void> {
    let outcome: ChatRequestOutcome | undefined;
    let anomalies: UpstreamAnomaly[] = [];
    try {
      const billed = this.#billed(exchange, s);
      outcome = billed.outcome;
      anomalies = billed.anomalies;
      const settled = await this.#settleRetrying(exchange, outcome, linger);
      if (typeof settled === 'object') {
        this.#deps.logger.warn({ chatRequestId: exchange.id, uncollectedMicro: settled.uncollectedMicro }, 'chat usage exceeded the hold and the balance');
      }
      // A chat_charge entry was written when something was collected.
      const cost = outcome.costMicro;
      const collected = settled === 'taken' ? 0 : typeof settled === 'object' ? cost - settled.uncollectedMicro : cost;
      if (collected > 0) this.#deps.metrics.ledgerEntries.inc({ kind: 'chat_charge' });
      if (outcome.inputTokens > 0) this.#deps.metrics.chatTokens.inc({ model: exchange.model.id, direction: 'input' }, outcome.inputTokens);
      if (outcome.outputTokens > 0) this.#deps.metrics.chatTokens.inc({ model: exchange.model.id, direction: 'output' }, outcome.outputTokens);
    } catch (error) {
      // The hold must not stay for ever: the chat_settle job charges the estimate at its next run.
      const estimate = outcome?.costMicro ?? this.#estimateMicro(exchange, s);
      this.#deps.logger.error({ err: error, chatRequestId: exchange.id, estimateMicro: estimate }, 'chat settlement failed; the chat_settle job will settle the hold with the estimate');
      await this.#defer(exchange.id, estimate, s.status);
    } finally {
      this.#untrack(exchange.id);
    }
    if (anomalies.length > 0) this.recordAnomalies(anomalies);
  }

  /**
   * The usage bounded by what the request allowed (usage-bounds.ts), the charge (never above the hold,
   * nor the caller's cap) and the request's record; `exchange.billedUsage` is set for the client's answer.
   */
  #billed(exchange: ChatExchange, s: Settlement): { outcome: ChatRequestOutcome; anomalies: UpstreamAnomaly[] } {
    const { model } = exchange;
    const now = Date.now();
    const bounded: BoundedUsage = s.usage
      ? boundChatUsage(s.usage, { promptTokens: exchange.promptTokens, maxOutputTokens: exchange.maxOutputTokens, webSearches: exchange.maxWebSearches, outputSeen: s.outputSeen ?? 0 })
      : { usage: NO_USAGE, anomalies: [] };
    const usage = bounded.usage;
    const cost = s.usage ? Math.min(boundCharge(costMicro(model, usage), exchange.holdMicro, bounded.anomalies), exchange.maxChargeMicro) : 0;
    if (s.usage) exchange.billedUsage = billedServiceTier(model, usage);
    const route = exchange.route;
    const outcome: ChatRequestOutcome = {
      status: s.status,
      provider: route?.provider ?? null,
      upstreamModel: route?.model ?? null,
      attempts: exchange.attempts,
      inputTokens: usage.inputTokens,
      outputTokens: usage.outputTokens,
      cachedTokens: usage.cachedInputTokens,
      cacheCreationTokens: usage.cacheCreationTokens,
      usageEstimated: usage.estimated === true,
      costMicro: cost,
      stopReason: s.stopReason ?? null,
      latencyMs: now - exchange.startedAt,
      firstByteMs: exchange.firstByteAt === undefined ? null : exchange.firstByteAt - exchange.startedAt,
      errorCode: s.error?.code ?? null,
      errorMessage: s.error?.message ?? null,
      finishedAt: now,
    };
    endUpstreamSpan(exchange.upstreamSpan, { status: s.status, inputTokens: usage.inputTokens, outputTokens: usage.outputTokens, costMicro: cost, errorMessage: s.error?.message });
    const anomalies = bounded.anomalies.map((a) => ({
      provider: route?.provider ?? null,
      model: model.id,
      upstreamModel: route?.model ?? null,
      protocol: exchange.protocol,
      reference: exchange.id,
      userId: exchange.userId,
      field: a.field,
      kind: a.kind,
      reported: a.reported,
      billed: a.billed,
    }));
    return { outcome, anomalies };
  }

  /**
   * What a request whose charge could not be computed is charged: the prompt estimate and the output
   * seen (at most max_tokens) at the listed prices, never above the hold; nothing when nothing was to
   * be billed.
   */
  #estimateMicro(exchange: ChatExchange, s: Settlement): number {
    if (!s.usage) return 0;
    try {
      const output = Math.min(s.outputSeen ?? exchange.maxOutputTokens, exchange.maxOutputTokens);
      const estimate = costMicro(exchange.model, { inputTokens: exchange.promptTokens, outputTokens: output, cachedInputTokens: 0, cacheCreationTokens: 0 });
      return Math.min(estimate, exchange.holdMicro);
    } catch {
      return exchange.holdMicro;
    }
  }

  /** Leaves the hold to the chat_settle job with the charge to make; if even that write fails, the job releases it once the heartbeat stops. */
  async #defer(id: string, chargeMicro: number, status: FinalStatus): Promise<void> {
    try {
      await deferChatSettlement(this.#deps.db, id, { chargeMicro, status });
    } catch (error) {
      this.#deps.logger.error({ err: error, chatRequestId: id }, 'leaving the hold to the chat_settle job failed; it will release it in full');
    }
  }

  /** Recorded after the money moved, off the request's path: losing a row loses only the operator's view. */
  recordAnomalies(anomalies: UpstreamAnomaly[]): void {
    this.#deps.logger.warn({ anomalies }, 'upstream usage corrected before billing');
    this.#deps.metrics.upstreamAnomalies.inc({ kind: 'usage' }, anomalies.length);
    void this.#deps.anomalies?.record(anomalies).catch((error: unknown) => this.#deps.logger.warn({ err: error }, 'recording upstream anomalies failed'));
  }

  async #settleRetrying(exchange: ChatExchange, outcome: ChatRequestOutcome, linger: boolean): Promise<SettleResult> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.#ledger.settle(exchange.record, outcome, exchange.model.id, linger);
      } catch (error) {
        const delay = SETTLE_RETRY_DELAYS_MS[attempt];
        if (delay === undefined || !isInfrastructureFault(error)) throw error;
        this.#deps.logger.warn({ err: error, chatRequestId: exchange.id, attempt: attempt + 1 }, 'chat settlement met a store fault; retrying');
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
    }
  }

  #untrack(id: string): void {
    this.#running.delete(id);
    if (this.#running.size === 0) {
      this.#stopHeartbeat();
      for (const resolve of this.#idle.splice(0)) resolve();
    }
  }

  /**
   * The hold of a request billed like a chat request that is not one (embeddings, issue 20): the
   * same guarded reservation and hold row (insufficient_balance before anything is sent), marked
   * alive with the running chat requests; `cancel` stops it at shutdown. Settled by settleMetered,
   * which the caller must reach once, whatever happens.
   */
  async holdMetered(record: NewChatRequest, cancel: () => void): Promise<void> {
    if (this.#closing) throw new AppError('service_unavailable', 'The server is shutting down; try again.', { retryAfter: 1 });
    await this.#ledger.hold(record);
    this.#running.set(record.id, { cancel });
    this.#startHeartbeat();
  }

  /** Settles a holdMetered request at `outcome.costMicro` (the hold row's delete is the compare-and-set). Never throws. */
  async settleMetered(record: NewChatRequest, outcome: ChatRequestOutcome): Promise<void> {
    try {
      const settled = await this.#ledger.settle(record, outcome, record.model, false);
      const collected = settled === 'taken' ? 0 : typeof settled === 'object' ? outcome.costMicro - settled.uncollectedMicro : outcome.costMicro;
      if (collected > 0) this.#deps.metrics.ledgerEntries.inc({ kind: 'chat_charge' });
      if (outcome.inputTokens > 0) this.#deps.metrics.chatTokens.inc({ model: record.model, direction: 'input' }, outcome.inputTokens);
    } catch (error) {
      this.#deps.logger.error({ err: error, chatRequestId: record.id }, 'settlement failed; the chat_settle job will release the hold');
    } finally {
      this.#untrack(record.id);
    }
  }

  /** Records one upstream call for /admin/v1/providers and /metrics. */
  recordCall(provider: string, error: ChatUpstreamError | undefined): void {
    // A refused request (the client's fault) or a cancelled one says nothing bad about the upstream.
    const healthy = error === undefined || !error.retryable;
    this.#deps.health.record(provider, healthy, error?.message);
    this.#deps.metrics.providerCalls.inc({ provider, kind: 'chat', outcome: error === undefined ? 'ok' : error.status === 499 ? 'cancelled' : error.retryable ? 'failed' : 'refused' });
  }

  get router(): ChatRouter {
    return this.#deps.router;
  }

  get tracer(): Tracer {
    return this.#deps.tracer ?? NOOP_TRACER;
  }

  get logger(): Logger {
    return this.#deps.logger;
  }

  #startHeartbeat(): void {
    if (this.#heartbeat) return;
    const every = this.#deps.heartbeatMs ?? 60_000;
    this.#heartbeat = setInterval(() => void this.markAlive(), every);
    this.#heartbeat.unref();
  }

  #stopHeartbeat(): void {
    clearInterval(this.#heartbeat);
    this.#heartbeat = undefined;
  }

  /** Marks the rows of this process's running requests alive (the heartbeat; the chat_settle job reads it). */
  async markAlive(): Promise<void> {
    const ids = [...this.#running.keys()];
    const now = Date.now();
    try {
      for (let at = 0; at < ids.length; at += 500) await touchChatHolds(this.#deps.db, ids.slice(at, at + 500), now);
    } catch (error) {
      this.#deps.logger.warn({ err: error }, 'marking running chat requests failed');
    }
  }
}

/**
 * One request between its hold and its settlement. It keeps the few fields billing needs, and drops
 * the request itself once the upstream has it: a long stream should not hold a large prompt.
 */
class ChatExchange {
  readonly id: string;
  readonly startedAt = Date.now();
  readonly holdMicro: number;
  readonly promptTokens: number;
  readonly maxOutputTokens: number;
  readonly wantsStream: boolean;
  /** The charge cap (ChatCall.maxChargeMicro); unbounded for API requests. */
  readonly maxChargeMicro: number;
  /** The web searches the request's tools allow (their max_uses): a reported count above is not billed. */
  readonly maxWebSearches: number;
  /** The usage the settlement billed (bounded), which the client's answer reports. */
  billedUsage: ChatUsage | undefined;
  readonly userId: string;
  readonly apiKeyId: string | undefined;
  readonly protocol: ChatProtocol;
  readonly model: ChatModelDefinition;
  /** What the hold records, and the settlement's row repeats. */
  readonly record: NewChatRequest;
  route: RouteTarget | undefined;
  attempts = 0;
  firstByteAt: number | undefined;
  /** The call that answered, ended at the settlement with the usage and cost. */
  upstreamSpan: Span | undefined;
  /**
   * The last upstream call ended without an answer because it was stopped after it was sent (our
   * cancel, the bound after a client left, a time-out once the client had gone): the upstream may
   * have billed its prompt, so the settlement charges the estimate, not nothing.
   */
  unansweredAfterSend = false;
  readonly #service: ChatService;
  readonly #abort: AbortController;
  /**
   * What the upstream call listens to, apart from the client: aborted at once for a cancel (or at
   * shutdown), `upstreamAfterLeaveMs` after a client that left (ChatCall.onAbort).
   */
  readonly #upstream = new AbortController();
  readonly #finishOnAbort: boolean;
  readonly #leaveMs: number;
  #leaveTimer: NodeJS.Timeout | undefined;
  #request: ChatRequest | undefined;
  #settled: Promise<void> | undefined;
  #ended: () => void = () => {};
  /** Resolves once the request is settled: its upstream call has ended (ChatAnswer.ended). */
  readonly ended = new Promise<void>((resolve) => (this.#ended = resolve));

  constructor(service: ChatService, call: ChatCall, model: ChatModelDefinition, promptTokens: number, leaveMs: number) {
    this.#service = service;
    this.#request = call.request;
    this.#abort = call.abort;
    this.#finishOnAbort = call.onAbort !== 'cancel';
    this.#leaveMs = leaveMs;
    if (call.abort.signal.aborted) this.#left();
    else call.abort.signal.addEventListener('abort', this.#left, { once: true });
    call.stop?.addEventListener('abort', () => this.#stopNow(call.stop?.reason), { once: true });
    this.userId = call.userId;
    this.apiKeyId = call.apiKeyId;
    this.protocol = call.protocol;
    this.wantsStream = call.request.stream;
    this.maxOutputTokens = call.request.maxOutputTokens ?? 0;
    this.model = model;
    this.promptTokens = promptTokens;
    this.holdMicro = holdMicro(model, promptTokens, this.maxOutputTokens, call.request.priceOptions);
    this.id = call.id ?? newId('chat', this.startedAt);
    this.maxChargeMicro = call.maxChargeMicro ?? Number.POSITIVE_INFINITY;
    this.maxWebSearches = call.request.priceOptions?.webSearches?.max ?? 0;
    this.record = {
      id: this.id,
      userId: this.userId,
      apiKeyId: this.apiKeyId ?? null,
      model: model.id,
      protocol: this.protocol,
      stream: this.wantsStream,
      holdMicro: this.holdMicro,
      now: this.startedAt,
    };
  }

  /** The client went away (or the run was stopped), or the server is shutting down: nothing more is handed on. */
  get signal(): AbortSignal {
    return this.#abort.signal;
  }

  /** A client that left (ChatCall.onAbort `finish`): its upstream call is read to its end for its usage. */
  get finishesOnAbort(): boolean {
    return this.#finishOnAbort;
  }

  /** Stops the upstream call: later than `signal` for a client that left (its upstream is still read). */
  get upstreamSignal(): AbortSignal {
    return this.#upstream.signal;
  }

  cancel(): void {
    this.#stopNow(new Error('server shutting down'));
  }

  /** The upstream first, so that the caller's abort does not start the bounded read of #left. */
  #stopNow(reason: unknown): void {
    const error = reason instanceof Error ? reason : new Error('the request was stopped');
    this.#upstream.abort(error);
    this.#abort.abort(error);
  }

  settle(s: Settlement, linger = false): Promise<void> {
    clearTimeout(this.#leaveTimer);
    this.#abort.signal.removeEventListener('abort', this.#left);
    if (!this.#settled) {
      this.#settled = this.#service.settle(this, s, linger);
      void this.#settled.then(this.#ended);
    }
    return this.#settled;
  }

  /**
   * The caller is gone. The upstream keeps working and billing us whether we read it or not, so a
   * client's upstream call is read to its end (bounded) for its usage; a cancel stops it at once.
   */
  readonly #left = (): void => {
    if (this.#settled || this.#upstream.signal.aborted) return;
    const reason = this.#abort.signal.reason instanceof Error ? this.#abort.signal.reason : new Error('the client went away');
    if (!this.#finishOnAbort) {
      this.#upstream.abort(reason);
      return;
    }
    this.#leaveTimer = setTimeout(() => this.#upstream.abort(new Error(`the client left and the upstream did not finish within ${this.#leaveMs} ms`)), this.#leaveMs);
    this.#leaveTimer.unref();
  };

  /** What an upstream call stopped after it was sent is charged when it reported nothing: the prompt estimate. */
  promptOnly(): ChatUsage {
    return { ...NO_USAGE, inputTokens: this.promptTokens, estimated: true };
  }

  async run(routes: RouteTarget[]): Promise<ChatAnswer> {
    const result = await this.#firstAnswer(routes);
    this.#request = undefined;
    if (!result.ok) {
      const error = appErrorFromUpstream(result.error);
      await this.settle({
        status: this.signal.aborted ? 'client_closed' : 'failed',
        // An upstream that answered with an error bills nothing; one stopped after it was sent may have.
        usage: this.unansweredAfterSend ? this.promptOnly() : undefined,
        error: { code: error.code, message: result.error.message },
      });
      throw error;
    }
    const wantsStream = this.wantsStream;
    // A client that left while the upstream answered is charged that answer's usage all the same.
    const answered = this.signal.aborted ? 'client_closed' : 'succeeded';
    if (result.kind === 'response') {
      const response = { ...result.response, id: this.id, model: this.model.id };
      if (!wantsStream) {
        // Settled right after the answer is written (the write is queued behind it): the client does
        // not wait for the second transaction. A crash in between leaves it to the chat_settle job.
        void this.settle({ status: answered, usage: response.usage, outputSeen: outputBytesOf(response.content), stopReason: response.stopReason }, true);
        // The answer reports what was billed (the settlement bounded the upstream's counts synchronously).
        return { kind: 'response', id: this.id, response: { ...response, usage: this.billedUsage ?? response.usage }, ended: this.ended };
      }
      return { kind: 'stream', id: this.id, events: this.#billed(responseToEvents(response)), ended: this.ended };
    }
    if (wantsStream) return { kind: 'stream', id: this.id, events: this.#billed(result.events), ended: this.ended };
    // A streamed upstream for a client that wants one JSON answer: collect it.
    const collected = await collectChatStream(result.events);
    if (!collected.ok) {
      // Nothing reached the client: nothing is charged, unless the client had gone (what the upstream
      // produced for it is charged as observed: the prompt estimate and the output seen).
      const left = this.signal.aborted;
      await this.settle({ status: left ? 'client_closed' : 'failed', usage: left ? collected.usage : undefined, outputSeen: outputBytesOf(collected.partial.content), error: { code: chatErrorCodeForStatus(collected.error.status), message: collected.error.message } });
      throw appErrorFromUpstream({ status: collected.error.status, retryable: false, message: collected.error.message });
    }
    const response = { ...collected.response, id: this.id, model: this.model.id };
    void this.settle({ status: this.signal.aborted ? 'client_closed' : 'succeeded', usage: response.usage, outputSeen: outputBytesOf(response.content), stopReason: response.stopReason }, true);
    return { kind: 'response', id: this.id, response: { ...response, usage: this.billedUsage ?? response.usage }, ended: this.ended };
  }

  /** Tries the routes in order; returns the first success, or the last failure. */
  async #firstAnswer(routes: RouteTarget[]): Promise<ChatUpstreamResult> {
    const router = this.#service.router;
    const request = this.#request;
    if (!request) throw new Error('the request was already sent');
    let last: ChatUpstreamError = { status: 502, retryable: false, message: 'No route could serve this model.' };
    for (const route of routes) {
      if (this.signal.aborted) return { ok: false, error: { status: 499, retryable: false, message: 'The client cancelled the request.' } };
      this.attempts++;
      this.route = route;
      const provider = router.provider(route.provider);
      if (!provider) {
        last = { status: 502, retryable: true, message: `The provider ${route.provider} (type ${router.providerType(route.provider) ?? 'unknown'}) cannot serve text models.` };
        continue;
      }
      const span = startUpstreamSpan(this.#service.tracer, this.model.id, route, request);
      const result = await provider.send(request, { upstreamModel: route.model }, this.upstreamSignal);
      this.#service.recordCall(route.provider, result.ok ? undefined : result.error);
      // No answer at all (no error body): stopped by us, or timed out once the client had gone.
      this.unansweredAfterSend = !result.ok && result.error.upstreamBody === undefined && (result.error.status === 499 || (this.signal.aborted && result.error.status === 504));
      if (result.ok) {
        this.firstByteAt = Date.now();
        this.upstreamSpan = span;
        return result;
      }
      last = result.error;
      endUpstreamSpan(span, { status: 'failed', inputTokens: 0, outputTokens: 0, costMicro: 0, errorMessage: `${last.status} ${last.message}` });
      if (!last.retryable) break;
      this.#service.logger.info({ chatRequestId: this.id, provider: route.provider, status: last.status, message: last.message }, 'chat route failed; trying the next');
    }
    return { ok: false, error: last };
  }

  /** The upstream's events, handed on as they come and billed when they end (BilledEvents). */
  #billed(events: Iterable<ChatStreamEvent> | AsyncIterable<ChatStreamEvent>): AsyncIterableIterator<ChatStreamEvent> {
    const source = Symbol.asyncIterator in events ? events[Symbol.asyncIterator]() : toAsync(events[Symbol.iterator]());
    return new BilledEvents(source, this);
  }
}

/**
 * Hands the events on as they come and settles when the answer ends: at `message_end` (the usage
 * reported), at an `error` (a cut stream or a departed client: the usage observed, estimated when the
 * upstream reported none), or when the consumer stops early (the usage seen so far plus the output
 * counted since). Settlement happens before the terminal event is handed on. An iterator written out
 * rather than an async generator: one promise per event instead of a generator's machinery, on the
 * path every streamed token takes.
 */
class BilledEvents implements AsyncIterableIterator<ChatStreamEvent> {
  readonly #source: AsyncIterator<ChatStreamEvent>;
  readonly #exchange: ChatExchange;
  #usage: ChatUsage | undefined;
  #countedOutput = 0;
  /** Every output byte seen: the estimate of an output count the upstream reports as something else than a number. */
  #outputSeen = 0;
  #done = false;
  /** The upstream of a caller that went away, read to its end (#finishUnheard). */
  #finishing: Promise<void> | undefined;

  constructor(source: AsyncIterator<ChatStreamEvent>, exchange: ChatExchange) {
    this.#source = source;
    this.#exchange = exchange;
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<ChatStreamEvent> {
    return this;
  }

  async next(): Promise<IteratorResult<ChatStreamEvent>> {
    if (this.#done) return { done: true, value: undefined };
    // One property read per event: a client that left gets nothing more, the upstream is read for its usage.
    if (this.#exchange.signal.aborted) return this.#finishUnheard();
    let step: IteratorResult<ChatStreamEvent>;
    try {
      step = await this.#source.next();
    } catch (error) {
      await this.#stop();
      throw error;
    }
    if (step.done) {
      // The upstream layer always ends with a terminal event; a source that does not was cut.
      this.#done = true;
      const usage = withCountedOutput(this.#usage, this.#countedOutput);
      const error = { status: 502, message: 'The upstream stream ended before its final event.' };
      await this.#exchange.settle({ status: 'cut', usage, outputSeen: this.#outputSeen, error: { code: 'upstream_error', message: error.message } });
      return { done: false, value: { type: 'error', error, usage: this.#exchange.billedUsage ?? usage } };
    }
    const event = step.value;
    switch (event.type) {
      case 'message_start':
      case 'usage':
      case 'text_delta':
      case 'reasoning_delta':
      case 'tool_call_start':
      case 'tool_call_delta':
        this.#observe(event);
        break;
      case 'message_end':
        this.#done = true;
        await this.#exchange.settle({ status: 'succeeded', usage: event.usage, outputSeen: this.#outputSeen, stopReason: event.stopReason });
        // The client reads what was billed: the upstream's counts within the request's bounds.
        return { done: false, value: { ...event, usage: this.#exchange.billedUsage ?? event.usage } };
      case 'error': {
        this.#done = true;
        const status = event.error.status === 499 || this.#exchange.signal.aborted ? 'client_closed' : 'cut';
        await this.#exchange.settle({ status, usage: event.usage, outputSeen: this.#outputSeen, error: { code: chatErrorCodeForStatus(event.error.status), message: event.error.message } });
        const billed = this.#exchange.billedUsage;
        return { done: false, value: billed ? { ...event, usage: billed } : event };
      }
      default:
        break;
    }
    return { done: false, value: event };
  }

  /** Keeps the usage reported so far and counts the output since (what billing needs of a non-terminal event). */
  #observe(event: ChatStreamEvent): void {
    switch (event.type) {
      case 'message_start':
      case 'usage':
        this.#usage = event.usage;
        this.#countedOutput = 0;
        break;
      case 'text_delta':
      case 'reasoning_delta':
        this.#count(Buffer.byteLength(event.text));
        break;
      case 'tool_call_start':
        this.#count(Buffer.byteLength(event.name));
        break;
      case 'tool_call_delta':
        this.#count(Buffer.byteLength(event.arguments));
        break;
      default:
        break;
    }
  }

  #count(bytes: number): void {
    this.#countedOutput += bytes;
    this.#outputSeen += bytes;
  }

  /**
   * The caller went away: nothing more is handed on but one error event (499), and the rest of the
   * upstream's events are read without being handed on, until its end (the exchange cancels it
   * `upstreamAfterLeaveMs` after a client left, at once for a cancel). The request is settled from
   * the usage the upstream reported at its end or, when none came (cut, cancelled), from what was
   * observed: the prompt estimate and the output seen. A client that left does not wait for that
   * (its connection ends now; the exchange's `ended` says when the upstream did); a cancel does, as
   * it is quick and its caller reads the charge next.
   */
  async #finishUnheard(): Promise<IteratorResult<ChatStreamEvent>> {
    this.#done = true;
    const finished = this.#readToEnd();
    this.#finishing = finished;
    if (!this.#exchange.finishesOnAbort) await finished;
    const reason: unknown = this.#exchange.signal.reason;
    const message = reason instanceof Error ? reason.message : 'The client went away.';
    return { done: false, value: { type: 'error', error: { status: 499, message }, usage: this.#exchange.billedUsage ?? this.#usage ?? this.#exchange.promptOnly() } };
  }

  /** Reads the upstream to its end and settles; never throws. */
  async #readToEnd(): Promise<void> {
    let end: Extract<ChatStreamEvent, { type: 'message_end' | 'error' }> | undefined;
    for (;;) {
      let step: IteratorResult<ChatStreamEvent>;
      try {
        step = await this.#source.next();
      } catch {
        break;
      }
      if (step.done) break;
      const event = step.value;
      if (event.type === 'message_end' || event.type === 'error') {
        end = event;
        break;
      }
      this.#observe(event);
    }
    // An error's usage is the decoder's observation (the prompt estimate, the output it counted).
    const usage = end?.usage ?? withCountedOutput(this.#usage ?? this.#exchange.promptOnly(), this.#countedOutput);
    const message = 'The client went away.';
    await this.#exchange.settle({
      status: 'client_closed',
      usage,
      outputSeen: this.#outputSeen,
      ...(end?.type === 'message_end' ? { stopReason: end.stopReason } : {}),
      error: { code: 'client_closed', message: end?.type === 'error' ? `${message} Then: ${end.error.message}` : message },
    });
  }

  /** The consumer stopped early (its client left, a write failed): cancel the upstream, bill what was seen. */
  async return(): Promise<IteratorResult<ChatStreamEvent>> {
    await this.#stop();
    return { done: true, value: undefined };
  }

  async #stop(): Promise<void> {
    // The upstream is being read to its end for its usage: that settles the request.
    if (this.#finishing) return;
    const wasDone = this.#done;
    this.#done = true;
    if (!wasDone) await this.#source.return?.();
    await this.#exchange.settle({
      status: 'client_closed',
      usage: withCountedOutput(this.#usage ?? this.#exchange.promptOnly(), this.#countedOutput),
      outputSeen: this.#outputSeen,
      error: { code: 'client_closed', message: 'The client went away.' },
    });
  }
}

async function* toAsync<T>(iterator: Iterator<T>): AsyncGenerator<T> {
  for (let step = iterator.next(); !step.done; step = iterator.next()) yield step.value;
}

/** Usage last reported, with the output counted since (UTF-8 bytes, an upper bound) added as an estimate. */
function withCountedOutput(usage: ChatUsage | undefined, countedOutput: number): ChatUsage {
  const base = usage ?? NO_USAGE;
  if (countedOutput === 0 && usage !== undefined) return base;
  return { ...base, outputTokens: base.outputTokens + countedOutput, estimated: true };
}

function errorSummary(error: unknown): { code: string; message: string } {
  if (isAppError(error)) return { code: error.code, message: error.message };
  return { code: 'internal_error', message: error instanceof Error ? error.message : String(error) };
}
