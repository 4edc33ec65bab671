import { TERMINAL_RUN_STATUSES } from '../../../domain/agent/run-status.ts';
import type { Executor } from '../schema.ts';
import type { HoldRow, LedgerPageQuery, OpenRunRow } from '../../../ports/billing-store.port.ts';
import type { LedgerEntryRow } from './ledger.repository.ts';

export type { HoldRow, OpenRunRow } from '../../../ports/billing-store.port.ts';

/** A user's ledger page, newest first, optionally of some kinds only (cursor: the last id of the previous page). */
export async function listUserEntries(db: Executor, userId: string, options: LedgerPageQuery): Promise<LedgerEntryRow[]> {
  let query = db.selectFrom('ledger_entries').selectAll().where('user_id', '=', userId).orderBy('id', 'desc').limit(options.limit);
  if (options.memberId) query = query.where('member_id', '=', options.memberId);
  if (options.before) query = query.where('id', '<', options.before);
  if (options.kinds && options.kinds.length > 0) query = query.where('kind', 'in', options.kinds);
  return query.execute();
}

/** The agent conversation (and run) behind each chat request or task id that an agent operation made. */
export async function agentOriginsOf(db: Executor, userId: string, refIds: readonly string[]): Promise<Map<string, { runId: string; conversationId: string }>> {
  if (refIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('agent_operations as o')
    .innerJoin('agent_runs as r', 'r.id', 'o.run_id')
    .select(['o.ref_id', 'o.run_id', 'r.conversation_id'])
    .where('o.user_id', '=', userId)
    .where('o.ref_id', 'in', refIds)
    .execute();
  return new Map(rows.map((r) => [r.ref_id, { runId: r.run_id, conversationId: r.conversation_id }]));
}

/** Our checkout ids of the given provider sessions. */
export async function checkoutIdsOf(db: Executor, userId: string, sessionIds: readonly string[]): Promise<Map<string, string>> {
  if (sessionIds.length === 0) return new Map();
  const rows = await db.selectFrom('payment_checkouts').select(['id', 'session_id']).where('user_id', '=', userId).where('session_id', 'in', sessionIds).execute();
  return new Map(rows.flatMap((r) => (r.session_id ? [[r.session_id, r.id] as const] : [])));
}


/** The user's running chat requests' holds (the table holds only requests in flight). */
export async function listUserHolds(db: Executor, userId: string): Promise<HoldRow[]> {
  return db.selectFrom('chat_holds').select(['id', 'model', 'hold_micro', 'created_at']).where('user_id', '=', userId).orderBy('created_at', 'desc').limit(200).execute();
}


/** Agent runs that have not ended, with their budget books. */
export async function listOpenRuns(db: Executor, userId: string): Promise<OpenRunRow[]> {
  return db
    .selectFrom('agent_runs')
    .select(['id', 'conversation_id', 'status', 'limit_micro', 'settled_micro', 'committed_micro', 'created_at'])
    .where('user_id', '=', userId)
    .where('status', 'not in', TERMINAL_RUN_STATUSES)
    .orderBy('created_at', 'desc')
    .limit(50)
    .execute();
}
