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
import type { Logger } from 'pino';
import type { Metrics } from '../../adapters/metrics/metrics.ts';
import { isInfrastructureFault } from '../../adapters/resilience/infrastructure-fault.ts';
import type { Catalog } from '../../domain/catalog/catalog.ts';
import type { ChatModelDefinition } from '../../domain/catalog/catalog.types.ts';
import { assertLongContextBillable, assertPriceOptionsBillable, holdMicro } from '../../domain/chat/chat-billing.ts';
import type { ChatRequest } from '../../domain/chat/chat-request.types.ts';
import { estimatePromptTokens } from '../../domain/chat/prompt-size.estimator.ts';
import { applySamplingRules } from '../../domain/chat/sampling-rules.ts';
import { AppError, isAppError } from '../../domain/errors.ts';
import { microToUsd } from '../../domain/money.ts';
import { type GroupPricing, groupPriceMicro, LIST_PPM } from '../../domain/pricing/customer-groups.ts';
import type { CpuPool } from '../../ports/cpu-pool.port.ts';
import type { ChatStore } from '../../ports/chat-store.port.ts';
import type { ChatLedger, ChatRequestOutcome, NewChatRequest, SettleResult } from '../../ports/ledger.port.ts';
import { NOOP_TRACER, type Tracer } from '../../ports/tracer.port.ts';
import type { UnitOfWork } from '../../ports/unit-of-work.port.ts';
import type { UpstreamAnomaly, UpstreamAnomalyLog } from '../../ports/upstream-anomalies.port.ts';
import type { ChatUpstreamError } from '../../providers/chat/chat-provider.ts';
import type { TokenDoor } from '../accounts/key-door.ts';
import type { ProviderHealth } from '../upstreams/provider-health.ts';
import type { PlannedAttempt } from '../upstreams/route-planner.ts';
import { upstreamFailureOf } from '../upstreams/upstream-failure.ts';
import { billedOutcome, estimateMicro } from './chat-bill.ts';
import type { ChatAnswer, ChatCall, ChatQuote, FinalStatus, Settlement } from './chat-call.types.ts';
import { ChatExchange } from './chat-exchange.ts';
import { assertChatUrlsPublic, type ChatUrlPolicy } from './chat-input-urls.ts';
import type { ChatRouter } from './chat-router.ts';
import { admitPrompt } from './prompt-admission.ts';

export type { ChatAnswer, ChatCall, ChatQuote } from './chat-call.types.ts';

export interface ChatServiceDeps {
  /** The hold rows' heartbeat and the hold a failed settlement leaves to the chat_settle job (off the request's path). */
  store: ChatStore;
  uow: UnitOfWork;
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
  /** The hold and the settlement of each request (the composition root picks the engine's). */
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
  /** The key's tokens per minute, taken before the hold and settled with the usage; none: not limited. */
  tokens?: TokenDoor;
  /** Customer groups' multipliers (issue 33, item 4), in memory; none: everyone at the list price. */
  groups?: GroupPricing;
}

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
    if (this.#deps.tokens) {
      const reserved = this.#deps.tokens.reserveTokens(call.apiKeyId, promptTokens + request.maxOutputTokens, model.id);
      exchange.tokens = reserved instanceof Promise ? await reserved : reserved;
    }
    try {
      await this.#hold(exchange);
    } catch (error) {
      exchange.tokens?.settle(0);
      throw error;
    }
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
  quote(call: Pick<ChatCall, 'protocol' | 'request'> & { userId?: string }): ChatQuote {
    const model = this.#model(call);
    assertPriceOptionsBillable(model.id, model, call.request.priceOptions);
    applySamplingRules(model.sampling, call.request, call.protocol);
    const maxOutputTokens = this.#outputCap(model, call.request);
    const promptTokens = estimatePromptTokens({ ...call.request, maxOutputTokens });
    assertLongContextBillable(model.id, model, promptTokens, call.request.priceOptions);
    const ppm = call.userId === undefined ? LIST_PPM : this.priceMultiplierPpm(call.userId, model.id);
    return { promptTokens, maxOutputTokens, holdMicro: groupPriceMicro(holdMicro(model, promptTokens, maxOutputTokens, call.request.priceOptions), ppm), model, priceMultiplierPpm: ppm };
  }

  /** The multiplier of the account's customer group for a model; the list price without groups. */
  priceMultiplierPpm(userId: string, modelId: string): number {
    return this.#deps.groups?.ppmFor(userId, modelId) ?? LIST_PPM;
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

  #model(call: Pick<ChatCall, 'protocol' | 'request' | 'model'>): ChatModelDefinition {
    const id = call.request.model;
    // A quoted definition is frozen: the request keeps the prices it was quoted at, whatever was adopted since.
    const model = call.model?.id === id ? call.model : this.#deps.catalog.chat(id);
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
      const billed = billedOutcome(exchange, s);
      outcome = billed.outcome;
      exchange.tokens?.settle(outcome.inputTokens + outcome.outputTokens);
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
      const estimate = outcome?.costMicro ?? estimateMicro(exchange, s);
      this.#deps.logger.error({ err: error, chatRequestId: exchange.id, estimateMicro: estimate }, 'chat settlement failed; the chat_settle job will settle the hold with the estimate');
      await this.#defer(exchange.id, estimate, s.status);
    } finally {
      this.#untrack(exchange.id);
    }
    if (anomalies.length > 0) this.recordAnomalies(anomalies);
  }


  /** Leaves the hold to the chat_settle job with the charge to make; if even that write fails, the job releases it once the heartbeat stops. */
  async #defer(id: string, chargeMicro: number, status: FinalStatus): Promise<void> {
    try {
      await this.#deps.store.deferSettlement(this.#deps.uow.direct, id, { chargeMicro, status });
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

  /** Records one upstream call for /admin/v1/providers, /metrics and the health board that routing reads. */
  recordCall(attempt: PlannedAttempt, error: ChatUpstreamError | undefined): void {
    const provider = attempt.provider;
    // A refused request (the client's fault) or a cancelled one says nothing bad about the upstream.
    const healthy = error === undefined || !error.retryable;
    this.#deps.health.record(provider, healthy, error?.message);
    const failure = error === undefined ? undefined : upstreamFailureOf(error);
    // A failure that says nothing about the upstream (a refused request, a cancel) is not a success either.
    if (error === undefined || failure !== undefined) this.#deps.router.planner.report(attempt, failure);
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
      for (let at = 0; at < ids.length; at += 500) await this.#deps.store.markHoldsAlive(this.#deps.uow.direct, ids.slice(at, at + 500), now);
    } catch (error) {
      this.#deps.logger.warn({ err: error }, 'marking running chat requests failed');
    }
  }
}

function errorSummary(error: unknown): { code: string; message: string } {
  if (isAppError(error)) return { code: error.code, message: error.message };
  return { code: 'internal_error', message: error instanceof Error ? error.message : String(error) };
}
