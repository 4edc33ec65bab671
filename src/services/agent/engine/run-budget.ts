/**
 * The run's side of its money (AGENT.md "Budget"), always in the transaction that does the matching
 * thing on the account side: an operation is committed at its estimate only while the run is
 * running and the limit holds (settled + committed + estimate ≤ limit), and closed exactly once (a
 * compare-and-set on the operation) at its real cost, which never exceeds its commitment, or released.
 */
import type { OperationRow, RunBudget, RunRow } from '../../../ports/agent-store.port.ts';
import type { StoreTransaction } from '../../../ports/store-transaction.port.ts';
import type { OperationKind } from '../../../domain/agent/operation-state.ts';
import { newId } from '../../../domain/ids.ts';
import type { TxEffects } from '../events/agent-writer.ts';
import { type BudgetUpdatedData, budgetUpdated } from '../../../domain/agent/agent-events.ts';
import { runScope } from '../events/event-log.ts';

export interface NewOperation {
  stepId: string;
  kind: OperationKind;
  refId: string;
  model: string;
  estimateMicro: number;
}

/** Undefined when it does not fit (the run no longer runs, or the limit would be passed): nothing is written. */
export async function commitOperation(tx: StoreTransaction, fx: TxEffects, run: RunRow, op: NewOperation): Promise<OperationRow | undefined> {
  const row: OperationRow = {
    id: newId('op', fx.now),
    run_id: run.id,
    user_id: run.user_id,
    step_id: op.stepId,
    kind: op.kind,
    ref_id: op.refId,
    model: op.model,
    estimate_micro: op.estimateMicro,
    cost_micro: 0,
    state: 'committed',
    created_at: fx.now,
    settled_at: null,
  };
  const budget = await fx.store.commitOperation(tx, row);
  if (!budget) return undefined;
  await emitBudget(fx, run, budget);
  return row;
}

/** Closes the operation once: `settled` at min(cost, commitment), or `released`. False when it was closed before. */
export async function closeRunOperation(tx: StoreTransaction, fx: TxEffects, run: RunRow, op: OperationRow, state: 'settled' | 'released', costMicro: number): Promise<boolean> {
  const cost = state === 'settled' ? Math.min(Math.max(0, costMicro), Number(op.estimate_micro)) : 0;
  const budget = await fx.store.closeOperation(tx, op, state, cost, fx.now);
  if (!budget) return false;
  await emitBudget(fx, run, budget);
  return true;
}

export async function emitBudget(fx: TxEffects, run: RunRow, budget: RunBudget): Promise<void> {
  await fx.emit(budgetUpdated(runScope(run), presentBudget(budget)));
}

export function presentBudget(budget: Omit<RunBudget, 'version'>): BudgetUpdatedData {
  return {
    limitMicroUsd: String(budget.limitMicro),
    settledMicroUsd: String(budget.settledMicro),
    committedMicroUsd: String(budget.committedMicro),
    remainingMicroUsd: String(Math.max(0, budget.limitMicro - budget.settledMicro - budget.committedMicro)),
    version: budget.budgetVersion,
  };
}
