import { type PendingActionStatus, pendingActionMovableFrom } from '../../../../domain/agent/pending-action-status.ts';
import type { Executor } from '../../schema.ts';
import type { AgentPendingActionsTable } from '../../tables/agent.tables.ts';

export type PendingActionRow = AgentPendingActionsTable;

export async function insertPendingAction(db: Executor, row: PendingActionRow): Promise<void> {
  await db.insertInto('agent_pending_actions').values(row).execute();
}

export async function findPendingAction(db: Executor, id: string): Promise<PendingActionRow | undefined> {
  return db.selectFrom('agent_pending_actions').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function listRunActions(db: Executor, runId: string): Promise<PendingActionRow[]> {
  return db.selectFrom('agent_pending_actions').selectAll().where('run_id', '=', runId).orderBy('created_at').orderBy('id').execute();
}

/** Resolves a pending action by compare-and-set on its status (from what the table allows: `pending`) and its version. */
export async function resolvePendingAction(db: Executor, id: string, version: number, status: PendingActionStatus, response: unknown, now: number): Promise<boolean> {
  const from = pendingActionMovableFrom(status);
  if (from.length === 0) return false;
  const result = await db
    .updateTable('agent_pending_actions')
    .set({ status, response_json: JSON.stringify(response), resolved_at: now })
    .where('id', '=', id)
    .where('status', 'in', from)
    .where('version', '=', version)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Cancels whatever the run still waits for (a stop, a failure). */
export async function cancelPendingActions(db: Executor, runId: string, now: number): Promise<void> {
  await db
    .updateTable('agent_pending_actions')
    .set({ status: 'cancelled', resolved_at: now })
    .where('run_id', '=', runId)
    .where('status', 'in', pendingActionMovableFrom('cancelled'))
    .execute();
}
