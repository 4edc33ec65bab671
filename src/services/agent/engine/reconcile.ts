/**
 * Operations left open when a step was interrupted (a crash, a lost lease), closed before the run
 * goes on (rule 8: an unknown outcome is reconciled before further dispatch):
 * - a text call: its record says what it was charged; a hold still present belongs to a process that
 *   stopped (the engine runs one step of a run at a time), so it is released in full as abandoned, the
 *   way the chat_settle job would; no record and no hold means nothing was held;
 * - a generation: the media task machinery reconciles its provider itself; once the task has ended,
 *   the operation settles at what the ledger kept.
 */
import type { OperationRow } from '../../../ports/agent-store.port.ts';
import { isTerminal } from '../../../domain/tasks/task-status.ts';
import type { EngineDeps } from './engine-deps.ts';
import { settleGeneration } from './media-dispatch.ts';
import { closeRunOperation } from './run-budget.ts';
import { openOperations, type RunState } from './run-state.ts';
import { stepCompleted } from '../../../domain/agent/agent-events.ts';
import { runScope } from '../events/event-log.ts';

/** Returns whether anything changed (the caller reads the run again). */
export async function reconcileOperations(deps: EngineDeps, state: RunState): Promise<boolean> {
  let changed = false;
  for (const op of openOperations(state)) {
    if (op.kind === 'chat') {
      await closeInterruptedCall(deps, state, op);
      changed = true;
      continue;
    }
    const task = await deps.store.findGeneration(deps.uow.direct, op.ref_id);
    if (task && isTerminal(task.status)) {
      await settleGeneration(deps, state, op, task);
      changed = true;
    }
  }
  return changed;
}

/** A text call whose step stopped: settled at what its record says was charged, or its hold released. */
export async function closeInterruptedCall(deps: EngineDeps, state: RunState, op: OperationRow): Promise<void> {
  const { run } = state;
  const [step] = await deps.store.findSteps(deps.uow.direct, [op.step_id]);
  await deps.writer.run(async (tx, fx) => {
    let charge = await deps.store.findCallCharge(tx, op.ref_id);
    if (!charge) {
      const hold = await deps.store.findCallHold(tx, op.ref_id);
      // Releasing the hold moves money: through the book, which records the request as abandoned.
      if (hold) await deps.ledger.releaseAbandonedHold(tx, hold, fx.now);
      charge = await deps.store.findCallCharge(tx, op.ref_id);
    }
    const cost = charge?.costMicro ?? 0;
    await closeRunOperation(tx, fx, run, op, cost > 0 ? 'settled' : 'released', cost);
    if (step?.status === 'running') {
      const error = { code: 'interrupted', message: 'the worker running this call stopped; the call is repeated on the same model' };
      if (await deps.store.finishStep(tx, step.id, ['running'], { status: 'failed', output: { error }, costMicro: Math.min(cost, Number(op.estimate_micro)), finishedAt: fx.now })) {
        await fx.emit(stepCompleted(runScope(run), { stepId: step.id, kind: step.kind, status: 'failed', error }));
      }
    }
  });
}
