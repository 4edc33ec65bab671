import { insertStep } from '../../../adapters/db/repositories/agent/steps.repository.ts';
import type { ToolResult } from '../../../domain/agent/tool-result.ts';
import { newId } from '../../../domain/ids.ts';
import type { EngineDeps } from './engine-deps.ts';
import { nextPosition, type RunState } from './run-state.ts';
import { NOW, type StepOutcome } from './step-outcome.ts';
import { stepCompleted } from '../../../domain/agent/agent-events.ts';
import { runScope } from '../events/event-log.ts';

/**
 * A tool call answered at once (refused arguments, an unknown tool, a model the run may not use): a
 * completed tool step whose result the model reads on its next turn. Nothing is charged.
 */
export async function recordToolResult(deps: EngineDeps, state: RunState, call: { id: string; name: string; args?: unknown }, result: ToolResult): Promise<StepOutcome> {
  const { run } = state;
  await deps.writer.run(async (tx, fx) => {
    const stepId = newId('stp', fx.now);
    await insertStep(tx, {
      id: stepId,
      run_id: run.id,
      position: nextPosition(state),
      kind: 'tool',
      name: call.name,
      status: 'completed',
      tool_call_id: call.id,
      input_json: JSON.stringify({ arguments: call.args ?? null }),
      output_json: JSON.stringify(result),
      cost_micro: 0,
      started_at: fx.now,
      finished_at: fx.now,
    });
    await fx.emit(stepCompleted(runScope(run), { stepId, kind: 'tool', name: call.name, status: 'completed', result }));
  });
  return NOW;
}
