/**
 * The one way a tool call gets its result: its tool step completes with the result the model reads
 * on its next turn, and `run.step.completed` carries it to clients. A result known at once (refused
 * arguments, an unknown tool, a context read, the run's `finish`) inserts the step completed; a
 * generation's result completes the step its dispatch inserted, once (compare-and-set from running).
 */
import type { RunRow } from '../../../ports/agent-store.port.ts';
import type { StoreTransaction } from '../../../ports/store-transaction.port.ts';
import { stepCompleted } from '../../../domain/agent/agent-events.ts';
import type { ToolResult } from '../../../domain/agent/tool-result.ts';
import { newId } from '../../../domain/ids.ts';
import type { TxEffects } from '../events/agent-writer.ts';
import { runScope } from '../events/event-log.ts';
import type { EngineDeps } from './engine-deps.ts';
import { nextPosition, type RunState } from './run-state.ts';
import { NOW, type StepOutcome } from './step-outcome.ts';

/** Where the result goes: a new step for the call at `position`, or the running step of a paid call with its cost. */
export type ToolStepTarget =
  | { kind: 'new'; position: number; call: { id: string; name: string; args?: unknown } }
  | { kind: 'running'; stepId: string; name: string | undefined; costMicro: number };

/** Writes the result and its event in the caller's transaction; false when the running step had already ended. */
export async function writeToolResult(tx: StoreTransaction, fx: TxEffects, run: RunRow, target: ToolStepTarget, result: ToolResult): Promise<boolean> {
  let stepId: string;
  let name: string | undefined;
  if (target.kind === 'running') {
    stepId = target.stepId;
    name = target.name;
    if (!(await fx.store.finishStep(tx, stepId, ['running'], { status: 'completed', output: result, costMicro: target.costMicro, finishedAt: fx.now }))) return false;
  } else {
    stepId = newId('stp', fx.now);
    name = target.call.name;
    await fx.store.startStep(tx, {
      id: stepId,
      runId: run.id,
      position: target.position,
      kind: 'tool',
      name,
      status: 'completed',
      toolCallId: target.call.id,
      input: { arguments: target.call.args ?? null },
      output: result,
      startedAt: fx.now,
    });
  }
  const cost = target.kind === 'running' ? { costMicroUsd: String(target.costMicro) } : {};
  await fx.emit(stepCompleted(runScope(run), { stepId, kind: 'tool', ...(name !== undefined ? { name } : {}), status: 'completed', result, ...cost }));
  return true;
}

/**
 * A tool call answered at once (refused arguments, an unknown tool, a model the run may not use), in
 * its own transaction: the model reads the result on its next turn. Nothing is charged.
 */
export async function recordToolResult(deps: EngineDeps, state: RunState, call: { id: string; name: string; args?: unknown }, result: ToolResult): Promise<StepOutcome> {
  await deps.writer.run((tx, fx) => writeToolResult(tx, fx, state.run, { kind: 'new', position: nextPosition(state), call }, result));
  return NOW;
}
