import { type StepStatus, stepMovableFrom } from '../../../../domain/agent/step-status.ts';
import type { Executor } from '../../schema.ts';
import type { AgentStepsTable } from '../../tables/agent.tables.ts';

export type StepRow = Omit<AgentStepsTable, 'cost_micro'> & { cost_micro: number };

/**
 * Inserts the step at its position. (run_id, position) is unique, so of two workers that both think
 * they run the run's next step (one of them after losing its lease), one insert fails: it stops there.
 */
export async function insertStep(db: Executor, row: StepRow): Promise<void> {
  await db.insertInto('agent_steps').values(row).execute();
}

export async function listSteps(db: Executor, runId: string): Promise<StepRow[]> {
  return db.selectFrom('agent_steps').selectAll().where('run_id', '=', runId).orderBy('position').execute() as Promise<StepRow[]>;
}

/**
 * Ends a step by compare-and-set on its status: from the statuses the table allows, narrowed to
 * `from` (what the caller expects the step to be in). False when it had already ended, or the move
 * is not allowed.
 */
export async function finishStep(
  db: Executor,
  id: string,
  from: readonly StepStatus[],
  changes: { status: StepStatus; output_json?: string | null; cost_micro?: number; finished_at: number | null },
): Promise<boolean> {
  const allowed = stepMovableFrom(changes.status, from);
  if (allowed.length === 0) return false;
  const result = await db.updateTable('agent_steps').set(changes).where('id', '=', id).where('status', 'in', allowed).executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function findStepsByIds(db: Executor, ids: string[]): Promise<StepRow[]> {
  if (ids.length === 0) return [];
  return db.selectFrom('agent_steps').selectAll().where('id', 'in', ids).execute() as Promise<StepRow[]>;
}

/** Steps that waited for the user (a question, a proposal) end with the run that stopped waiting. */
export async function cancelWaitingSteps(db: Executor, runId: string, now: number): Promise<void> {
  await db
    .updateTable('agent_steps')
    .set({ status: 'cancelled', finished_at: now })
    .where('run_id', '=', runId)
    .where('status', 'in', stepMovableFrom('cancelled', ['waiting']))
    .execute();
}
