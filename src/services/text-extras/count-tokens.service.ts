/**
 * POST /api/v1/messages/count_tokens (issue 20, item 2): the input tokens of a messages request,
 * free. The model's routes are asked in order; the first whose upstream can count answers (an
 * Anthropic upstream through its own count endpoint, the local model exactly). When none can (routes
 * on OpenAI-style upstreams) or every one that can failed for reasons of its own (down, rate-limited),
 * the gateway's approximate count answers instead, flagged as an estimate: a client sizing a prompt
 * is better served by an estimate than by an error. A request the upstream refuses (400) is refused.
 */
import type { Logger } from 'pino';
import type { Metrics } from '../../adapters/metrics/metrics.ts';
import type { Catalog } from '../../domain/catalog/catalog.ts';
import type { ChatRequest } from '../../domain/chat/chat-request.types.ts';
import { invalidInput } from '../../domain/errors.ts';
import type { CpuPool } from '../../ports/cpu-pool.port.ts';
import { countPromptTokens } from '../../providers/chat/prompt-token-count.ts';
import { appErrorFromUpstream } from '../../providers/chat/upstream-error.ts';
import { NOOP_TRACER, type Tracer } from '../../ports/tracer.port.ts';
import type { UpstreamExtras } from './upstream-extras.ts';
import type { ChatRouter } from '../chat/chat-router.ts';

export interface CountTokensDeps {
  catalog: Catalog;
  router: ChatRouter;
  extras: UpstreamExtras;
  metrics: Metrics;
  logger: Logger;
  /** A span per upstream count (free: its cost is 0); none: the no-op tracer. */
  tracer?: Tracer;
  /** Where the estimate of a large prompt runs (none: on the event loop, for unit tests). */
  cpu?: CpuPool;
}

export interface TokenCount {
  inputTokens: number;
  /** True when the gateway estimated it (no upstream counted). */
  estimated: boolean;
}

export class CountTokensService {
  readonly #deps: CountTokensDeps;

  constructor(deps: CountTokensDeps) {
    this.#deps = deps;
  }

  async count(request: ChatRequest, signal: AbortSignal): Promise<TokenCount> {
    const model = this.#deps.catalog.chat(request.model);
    if (!model) throw invalidInput(`The model ${JSON.stringify(request.model)} does not exist; GET /api/v1/models lists the text models.`, 'model');
    if (!model.protocols.includes('anthropic')) throw invalidInput(`The model ${model.id} is not served over the messages protocol; count_tokens counts for Claude models.`, 'model');
    for (const route of this.#deps.router.routes(model.id)) {
      const counter = this.#deps.extras.counter(route.provider, route.keyId);
      if (!counter) continue;
      const tracer = this.#deps.tracer ?? NOOP_TRACER;
      const span = tracer.enabled
        ? tracer.startSpan(
            `count_tokens ${model.id}`,
            { 'gen_ai.request.model': model.id, 'gen_ai.provider.name': route.provider, 'switchboard.route.provider': route.provider, 'switchboard.route.model': route.model },
            { kind: 'client' },
          )
        : undefined;
      const result = await counter.countTokens(request, { upstreamModel: route.model }, signal);
      if (result.ok) span?.setAttributes({ 'gen_ai.usage.input_tokens': result.inputTokens, 'switchboard.cost_micro_usd': 0 });
      else span?.recordError(new Error(`${result.error.status} ${result.error.message}`));
      span?.end();
      const outcome = result.ok ? 'ok' : result.error.status === 499 ? 'cancelled' : result.error.retryable ? 'failed' : 'refused';
      this.#deps.metrics.providerCalls.inc({ provider: route.provider, kind: 'count_tokens', outcome });
      if (result.ok) return { inputTokens: result.inputTokens, estimated: false };
      if (!result.error.retryable) throw appErrorFromUpstream(result.error);
      this.#deps.logger.info({ provider: route.provider, status: result.error.status, message: result.error.message }, 'count_tokens route failed; trying the next');
    }
    const estimate = await countPromptTokens(request, 'approximate', this.#deps.cpu);
    if (!estimate.ok) throw appErrorFromUpstream(estimate.error);
    return { inputTokens: estimate.inputTokens, estimated: true };
  }
}
