/**
 * The spans of a chat request's upstream calls, with the GenAI semantic conventions' attributes
 * (gen_ai.*) and our own (the route, the cost in micro-USD). Prompt text goes in only when the
 * tracer allows content (SWITCHBOARD_TRACE_CONTENT=1); API keys and answers never do.
 */
import type { ChatRequest } from '../../domain/chat/chat-request.types.ts';
import { NOOP_SPAN, type Span, type Tracer } from '../../ports/tracer.port.ts';
import type { RouteTarget } from '../../config/config.types.ts';

/** One upstream call: started before the request leaves, ended at its failure or at the settlement. */
export function startUpstreamSpan(tracer: Tracer, publicModel: string, route: RouteTarget, request: ChatRequest): Span {
  if (!tracer.enabled) return NOOP_SPAN;
  const span = tracer.startSpan(
    `chat ${publicModel}`,
    {
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': publicModel,
      'gen_ai.provider.name': route.provider,
      'gen_ai.request.max_tokens': request.maxOutputTokens,
      'switchboard.route.provider': route.provider,
      'switchboard.route.model': route.model,
      'gen_ai.request.stream': request.stream,
    },
    { kind: 'client' },
  );
  if (tracer.recordContent) span.setAttributes({ 'gen_ai.input.messages': JSON.stringify({ system: request.system, messages: request.messages }) });
  return span;
}

export interface UpstreamSpanEnd {
  status: string;
  inputTokens: number;
  outputTokens: number;
  costMicro: number;
  errorMessage?: string | undefined;
}

/** The call's end: the usage billed and its cost (what the settlement records). */
export function endUpstreamSpan(span: Span | undefined, end: UpstreamSpanEnd): void {
  if (!span) return;
  span.setAttributes({
    'gen_ai.usage.input_tokens': end.inputTokens,
    'gen_ai.usage.output_tokens': end.outputTokens,
    'switchboard.cost_micro_usd': end.costMicro,
    'switchboard.chat.status': end.status,
  });
  if (end.status !== 'succeeded') span.recordError(new Error(end.errorMessage ?? end.status));
  span.end();
}
