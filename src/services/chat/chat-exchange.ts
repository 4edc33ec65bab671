import type { Logger } from 'pino';
import type { RouteTarget } from '../../config/config.types.ts';
import type { ChatModelDefinition } from '../../domain/catalog/catalog.types.ts';
import { holdMicro } from '../../domain/chat/chat-billing.ts';
import type { ChatProtocol, ChatRequest } from '../../domain/chat/chat-request.types.ts';
import type { ChatStreamEvent, ChatUsage } from '../../domain/chat/chat-response.types.ts';
import { collectChatStream, responseToEvents } from '../../domain/chat/chat-stream.collector.ts';
import { chatErrorCodeForStatus } from '../../domain/chat/chat-wire.helpers.ts';
import { outputBytesOf } from '../../domain/chat/usage-bounds.ts';
import { newId } from '../../domain/ids.ts';
import { groupPriceMicro } from '../../domain/pricing/customer-groups.ts';
import type { NewChatRequest } from '../../ports/ledger.port.ts';
import type { Span, Tracer } from '../../ports/tracer.port.ts';
import type { ChatUpstreamError, ChatUpstreamResult } from '../../providers/chat/chat-provider.ts';
import { appErrorFromUpstream } from '../../providers/chat/upstream-error.ts';
import { BilledEvents, toAsync } from './billed-events.ts';
import type { ChatAnswer, ChatCall, Settlement } from './chat-call.types.ts';
import type { ChatRouter } from './chat-router.ts';
import { endUpstreamSpan, startUpstreamSpan } from './chat-spans.ts';
import { NO_USAGE } from './chat-usage.ts';
import type { PlannedAttempt } from '../upstreams/route-planner.ts';
import type { TokenReservation } from '../accounts/key-door.ts';

/** What an exchange needs of the service that runs it (chat.service.ts, ChatService). */
export interface ExchangeHost {
  readonly router: ChatRouter;
  readonly tracer: Tracer;
  readonly logger: Logger;
  /** The settlement transaction; called once per exchange, never throws. */
  settle(exchange: ChatExchange, s: Settlement, linger: boolean): Promise<void>;
  /** Records one upstream call for /admin/v1/providers, /metrics and the health board. */
  recordCall(attempt: PlannedAttempt, error: ChatUpstreamError | undefined): void;
  /** The multiplier of the account's customer group for the model (in memory: no store access). */
  priceMultiplierPpm(userId: string, modelId: string): number;
}

/**
 * One request between its hold and its settlement. It keeps the few fields billing needs, and drops
 * the request itself once the upstream has it: a long stream should not hold a large prompt.
 */
export class ChatExchange {
  readonly id: string;
  readonly startedAt = Date.now();
  readonly holdMicro: number;
  /** The account's group multiplier, fixed at the hold: the settlement charges at it whatever changes meanwhile. */
  readonly priceMultiplierPpm: number;
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
  /** Its worst case taken from the key's tokens per minute; settled with the tokens billed. */
  tokens: TokenReservation | undefined;
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
  readonly #service: ExchangeHost;
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

  constructor(service: ExchangeHost, call: ChatCall, model: ChatModelDefinition, promptTokens: number, leaveMs: number) {
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
    this.priceMultiplierPpm = call.priceMultiplierPpm ?? service.priceMultiplierPpm(call.userId, model.id);
    this.holdMicro = groupPriceMicro(holdMicro(model, promptTokens, this.maxOutputTokens, call.request.priceOptions), this.priceMultiplierPpm);
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

  async run(routes: PlannedAttempt[]): Promise<ChatAnswer> {
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
  async #firstAnswer(routes: PlannedAttempt[]): Promise<ChatUpstreamResult> {
    const router = this.#service.router;
    const request = this.#request;
    if (!request) throw new Error('the request was already sent');
    let last: ChatUpstreamError = { status: 502, retryable: false, message: 'No route could serve this model.' };
    for (const route of routes) {
      if (this.signal.aborted) return { ok: false, error: { status: 499, retryable: false, message: 'The client cancelled the request.' } };
      this.attempts++;
      this.route = route;
      const provider = router.provider(route.provider, route.keyId);
      if (!provider) {
        last = { status: 502, retryable: true, message: `The provider ${route.provider} (type ${router.providerType(route.provider) ?? 'unknown'}) cannot serve text models.` };
        continue;
      }
      const span = startUpstreamSpan(this.#service.tracer, this.model.id, route, request);
      const result = await provider.send(request, { upstreamModel: route.model }, this.upstreamSignal);
      this.#service.recordCall(route, result.ok ? undefined : result.error);
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
