/**
 * Embeddings (issue 20, item 3): checks the model and the request, holds the most it can cost (every
 * input token bounded by its UTF-8 bytes, or a token array's length, at the model's input price),
 * tries the model's routes in order until one answers, and settles usage × price, to the micro-USD,
 * once, before the answer is handed back. Billing is the chat ledger's (ChatService.holdMetered and
 * settleMetered): the same hold row, compare-and-set settlement, `chat_charge` entry and crash job;
 * the request's row in chat_requests has protocol `embeddings`.
 */
import type { Logger } from 'pino';
import type { Metrics } from '../../adapters/metrics/metrics.ts';
import type { RouteTarget } from '../../config/config.types.ts';
import type { Catalog } from '../../domain/catalog/catalog.ts';
import type { EmbeddingModelDefinition } from '../../domain/catalog/models/embedding-models.ts';
import {
  assertEmbeddingAnswerFits,
  assertEmbeddingInputFits,
  embeddingCostMicro,
  embeddingDimensions,
  type EmbeddingRequest,
  embeddingTokenBound,
} from '../../domain/embeddings/embedding-request.ts';
import { AppError, invalidInput } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import { microToUsd } from '../../domain/money.ts';
import type { ChatUsage } from '../../domain/chat/chat-response.types.ts';
import { groupPriceMicro } from '../../domain/pricing/customer-groups.ts';
import { chatUpstreamCostMicro } from '../../domain/routing/route-cost.ts';
import type { ChatUpstreamError } from '../../providers/chat/chat-provider.ts';
import type { Embeddings } from '../../providers/chat/embedding-provider.ts';
import { appErrorFromUpstream } from '../../providers/chat/upstream-error.ts';
import type { ChatRequestOutcome, NewChatRequest } from '../../ports/ledger.port.ts';
import type { ChatRouter } from '../chat/chat-router.ts';
import type { ChatService } from '../chat/chat.service.ts';
import type { Span } from '../../ports/tracer.port.ts';
import { endEmbeddingSpan, startEmbeddingSpan } from './embedding-spans.ts';
import type { TokenDoor } from '../accounts/key-door.ts';
import type { ProviderHealth } from '../upstreams/provider-health.ts';
import type { PlannedAttempt } from '../upstreams/route-planner.ts';
import { upstreamFailureOf } from '../upstreams/upstream-failure.ts';
import type { UpstreamExtras } from './upstream-extras.ts';

export interface EmbeddingsServiceDeps {
  catalog: Catalog;
  chat: ChatService;
  router: ChatRouter;
  extras: UpstreamExtras;
  health: ProviderHealth;
  metrics: Metrics;
  logger: Logger;
  /** The key's tokens per minute (its input's bound taken before the hold); none: not limited. */
  tokens?: TokenDoor;
}

export interface EmbeddingCall {
  userId: string;
  apiKeyId: string | undefined;
  request: EmbeddingRequest;
  /** Aborted when the client goes away, or at shutdown. */
  abort: AbortController;
}

export interface EmbeddingAnswer {
  id: string;
  model: string;
  embeddings: Embeddings;
  costMicro: number;
}

export class EmbeddingsService {
  readonly #deps: EmbeddingsServiceDeps;

  constructor(deps: EmbeddingsServiceDeps) {
    this.#deps = deps;
  }

  /** Throws an AppError: 400 for the client to fix, 402 before any upstream call, or the last route's failure. */
  async embed(call: EmbeddingCall): Promise<EmbeddingAnswer> {
    const model = this.#model(call.request.model);
    const dimensions = embeddingDimensions(model, call.request);
    assertEmbeddingInputFits(model, call.request.input);
    assertEmbeddingAnswerFits(call.request.input, dimensions);
    const bound = embeddingTokenBound(call.request.input);
    const startedAt = Date.now();
    // The account's group multiplier, fixed for the hold and the settlement alike.
    const ppm = this.#deps.chat.priceMultiplierPpm(call.userId, model.id);
    const record: NewChatRequest = {
      id: newId('emb', startedAt),
      userId: call.userId,
      apiKeyId: call.apiKeyId ?? null,
      model: model.id,
      protocol: 'embeddings',
      stream: false,
      holdMicro: groupPriceMicro(embeddingCostMicro(model.inputMicroPerMillion, bound), ppm),
      now: startedAt,
    };
    const tokens = await this.#deps.tokens?.reserveTokens(call.apiKeyId, bound, model.id);
    try {
      await this.#deps.chat.holdMetered(record, () => call.abort.abort(new Error('server shutting down')));
    } catch (error) {
      tokens?.settle(0);
      if (error instanceof AppError && error.code === 'insufficient_balance') {
        throw new AppError(
          'insufficient_balance',
          `Insufficient balance: this request reserves up to USD ${microToUsd(record.holdMicro)} (at most ${bound} input tokens at ${model.id}'s price) until it settles at its exact cost.`,
        );
      }
      throw error;
    }
    const attempt: Attempt = { attempts: 0, route: undefined };
    let outcome = failedOutcome(startedAt, attempt, { code: 'internal_error', message: 'The request ended unexpectedly.' });
    try {
      const result = await this.#firstAnswer(model.id, this.#deps.router.routes(model.id), call, dimensions, attempt);
      if (!result.ok) {
        const error = appErrorFromUpstream(result.error);
        outcome = failedOutcome(startedAt, attempt, { code: error.code, message: result.error.message }, call.abort.signal.aborted);
        throw error;
      }
      // The upstream's count within what the hold assumed (the bound): more is not the user's to pay.
      const tokens = this.#billableTokens(result.embeddings.promptTokens, bound, record, attempt);
      const cost = groupPriceMicro(embeddingCostMicro(model.inputMicroPerMillion, tokens), ppm);
      outcome = {
        ...failedOutcome(startedAt, attempt, undefined),
        status: 'succeeded',
        inputTokens: tokens,
        usageEstimated: result.embeddings.estimated === true,
        costMicro: cost,
        upstreamCostMicro: chatUpstreamCostMicro(attempt.route?.cost, embeddingUsage(result.embeddings.promptTokens), embeddingUsage(tokens)),
        firstByteMs: Date.now() - startedAt,
      };
      return { id: record.id, model: model.id, embeddings: result.embeddings, costMicro: cost };
    } finally {
      endEmbeddingSpan(attempt.span, outcome);
      tokens?.settle(outcome.inputTokens);
      await this.#deps.chat.settleMetered(record, outcome);
    }
  }

  /** Closes the upstream adapters' connections (shared with count_tokens). */
  async close(): Promise<void> {
    await this.#deps.extras.close();
  }

  #model(id: string): Readonly<EmbeddingModelDefinition> {
    const model = this.#deps.catalog.embedding(id);
    if (model) return model;
    if (this.#deps.catalog.chat(id)) throw invalidInput(`${id} is a chat model, not an embedding model; GET /api/v1/models lists both.`, 'model');
    throw invalidInput(`The model ${JSON.stringify(id)} is not an embedding model of this gateway; GET /api/v1/models lists them.`, 'model');
  }

  async #firstAnswer(publicModel: string, routes: PlannedAttempt[], call: EmbeddingCall, dimensions: number, attempt: Attempt): Promise<{ ok: true; embeddings: Embeddings } | { ok: false; error: ChatUpstreamError }> {
    const signal = call.abort.signal;
    let last: ChatUpstreamError = { status: 502, retryable: false, message: 'No route could serve this model.' };
    for (const route of routes) {
      if (signal.aborted) return { ok: false, error: { status: 499, retryable: false, message: 'The client cancelled the request.' } };
      attempt.attempts++;
      attempt.route = route;
      const provider = this.#deps.extras.embedder(route.provider, route.keyId);
      if (!provider) {
        last = { status: 502, retryable: true, message: `The provider ${route.provider} (type ${this.#deps.router.providerType(route.provider) ?? 'unknown'}) cannot serve embeddings.` };
        continue;
      }
      const span = startEmbeddingSpan(this.#deps.chat.tracer, publicModel, route, dimensions);
      const result = await provider.embed(call.request, { upstreamModel: route.model, dimensions }, signal);
      this.#record(route, result.ok ? undefined : result.error);
      if (result.ok) {
        // Ended with the usage and the cost when the request settles.
        attempt.span = span;
        return result;
      }
      last = result.error;
      endEmbeddingSpan(span, { status: 'failed', inputTokens: 0, costMicro: 0, errorMessage: `${last.status} ${last.message}` });
      if (!last.retryable) break;
      this.#deps.logger.info({ provider: route.provider, status: last.status, message: last.message }, 'embeddings route failed; trying the next');
    }
    return { ok: false, error: last };
  }

  /**
   * The tokens to bill: the reported count, at most the hold's bound, and the bound for a count that
   * is not a non-negative integer; either correction is recorded as an upstream anomaly.
   */
  #billableTokens(reported: number, bound: number, record: NewChatRequest, attempt: Attempt): number {
    const valid = Number.isInteger(reported) && reported >= 0;
    if (valid && reported <= bound) return reported;
    this.#deps.chat.recordAnomalies([
      {
        provider: attempt.route?.provider ?? null,
        model: record.model,
        upstreamModel: attempt.route?.model ?? null,
        protocol: record.protocol,
        reference: record.id,
        userId: record.userId,
        field: 'inputTokens',
        kind: valid ? 'above_bound' : 'not_a_count',
        reported: String(reported),
        billed: bound,
      },
    ]);
    return bound;
  }

  #record(attempt: PlannedAttempt, error: ChatUpstreamError | undefined): void {
    const provider = attempt.provider;
    this.#deps.health.record(provider, error === undefined || !error.retryable, error?.message);
    const failure = error === undefined ? undefined : upstreamFailureOf(error);
    if (error === undefined || failure !== undefined) this.#deps.router.planner.report(attempt, failure);
    const outcome = error === undefined ? 'ok' : error.status === 499 ? 'cancelled' : error.retryable ? 'failed' : 'refused';
    this.#deps.metrics.providerCalls.inc({ provider, kind: 'embeddings', outcome });
  }
}

interface Attempt {
  attempts: number;
  route: RouteTarget | undefined;
  /** The span of the call that answered (the failed ones are ended as they fail). */
  span?: Span;
}

/** An embeddings request's tokens as usage (all of them input), to price at an entry's upstream cost. */
function embeddingUsage(inputTokens: number): ChatUsage {
  return { inputTokens, outputTokens: 0, cachedInputTokens: 0, cacheCreationTokens: 0 };
}

/** The outcome of a request that charged nothing (the base the success fills in). */
function failedOutcome(startedAt: number, attempt: Attempt, error: { code: string; message: string } | undefined, clientGone = false): ChatRequestOutcome {
  const now = Date.now();
  return {
    status: clientGone ? 'client_closed' : 'failed',
    provider: attempt.route?.provider ?? null,
    upstreamModel: attempt.route?.model ?? null,
    attempts: attempt.attempts,
    inputTokens: 0,
    outputTokens: 0,
    cachedTokens: 0,
    cacheCreationTokens: 0,
    usageEstimated: false,
    costMicro: 0,
    upstreamCostMicro: attempt.route?.cost ? 0 : null,
    stopReason: null,
    latencyMs: now - startedAt,
    firstByteMs: null,
    errorCode: error?.code ?? null,
    errorMessage: error?.message ?? null,
    finishedAt: now,
  };
}
