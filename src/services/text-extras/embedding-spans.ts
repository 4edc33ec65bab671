/**
 * The spans of an embeddings request's upstream calls, with the GenAI semantic conventions'
 * attributes (operation `embeddings`) and our own (the route, the cost in micro-USD). The input text
 * never goes in: it is not a prompt to read back, and it may be long.
 */
import type { RouteTarget } from '../../config/config.types.ts';
import { NOOP_SPAN, type Span, type Tracer } from '../../ports/tracer.port.ts';
import type { ChatRequestOutcome } from '../../ports/ledger.port.ts';

export function startEmbeddingSpan(tracer: Tracer, publicModel: string, route: RouteTarget, dimensions: number): Span {
  if (!tracer.enabled) return NOOP_SPAN;
  return tracer.startSpan(
    `embeddings ${publicModel}`,
    {
      'gen_ai.operation.name': 'embeddings',
      'gen_ai.request.model': publicModel,
      'gen_ai.provider.name': route.provider,
      'gen_ai.embeddings.dimension.count': dimensions,
      'switchboard.route.provider': route.provider,
      'switchboard.route.model': route.model,
    },
    { kind: 'client' },
  );
}

/** The call's end: the tokens billed and their cost, as the request's row records them. */
export function endEmbeddingSpan(span: Span | undefined, outcome: Pick<ChatRequestOutcome, 'status' | 'inputTokens' | 'costMicro' | 'errorMessage'>): void {
  if (!span) return;
  span.setAttributes({ 'gen_ai.usage.input_tokens': outcome.inputTokens, 'switchboard.cost_micro_usd': outcome.costMicro, 'switchboard.chat.status': outcome.status });
  if (outcome.status !== 'succeeded') span.recordError(new Error(outcome.errorMessage ?? outcome.status));
  span.end();
}
