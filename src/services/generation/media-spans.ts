/**
 * The spans of a media task's upstream calls (submit, poll, reconcile), with the GenAI semantic
 * conventions' attributes (gen_ai.*) and our own (the route, the task's charge in micro-USD). The
 * prompt and the provider's key never go in: the call's input is not read here at all.
 */
import type { AttemptRow, TaskRow } from '../../ports/task-store.port.ts';
import { NOOP_TRACER, type Tracer } from '../../ports/tracer.port.ts';

export type MediaCall = 'submit' | 'poll' | 'reconcile';

/** Runs one upstream call in a client span; the span records the outcome's kind (accepted, pending, failed…). */
export async function traceMediaCall<T extends { kind: string }>(
  tracer: Tracer = NOOP_TRACER,
  call: MediaCall,
  task: TaskRow,
  attempt: AttemptRow,
  send: () => Promise<T>,
): Promise<T> {
  if (!tracer.enabled) return send();
  const span = tracer.startSpan(
    `media ${call} ${task.model}`,
    {
      'gen_ai.operation.name': 'generate_content',
      'gen_ai.request.model': task.model,
      'gen_ai.provider.name': attempt.provider,
      'gen_ai.response.id': attempt.upstream_id ?? undefined,
      'switchboard.route.provider': attempt.provider,
      'switchboard.route.model': attempt.upstream_model,
      'switchboard.task.id': task.id,
      'switchboard.attempt.no': attempt.attempt_no,
      'switchboard.media.call': call,
      'switchboard.cost_micro_usd': task.cost_micro,
    },
    { kind: 'client' },
  );
  try {
    const outcome = await tracer.withSpan(span, send);
    span.setAttributes({ 'switchboard.upstream.outcome': outcome.kind });
    if (outcome.kind === 'failed' || outcome.kind === 'unknown') span.recordError(new Error(`upstream ${call} ${outcome.kind}`));
    return outcome;
  } catch (error) {
    span.recordError(error);
    throw error;
  } finally {
    span.end();
  }
}
