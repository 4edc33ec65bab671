import { sql } from 'kysely';
import { type RunStatus, runMovableFrom } from '../../../../domain/agent/run-status.ts';
import type { Executor } from '../../schema.ts';
import type { AgentRunsTable } from '../../tables/agent.tables.ts';
import type { RunBudget } from '../../../../ports/agent-store.port.ts';


type Defaults = 'wake_seq' | 'model_attempt' | 'overrides_json' | 'settled_micro' | 'committed_micro' | 'budget_version' | 'steer_json' | 'step_count' | 'revision';
export type RunRow = Omit<AgentRunsTable, Defaults> & {
  wake_seq: number;
  model_attempt: number;
  overrides_json: string;
  settled_micro: number;
  committed_micro: number;
  budget_version: number;
  steer_json: string;
  step_count: number;
  revision: number;
};
export type NewRunRow = Omit<AgentRunsTable, Defaults>;

export async function insertRun(db: Executor, row: NewRunRow): Promise<void> {
  await db.insertInto('agent_runs').values(row).execute();
}

export async function findRun(db: Executor, id: string): Promise<RunRow | undefined> {
  return db.selectFrom('agent_runs').selectAll().where('id', '=', id).executeTakeFirst() as Promise<RunRow | undefined>;
}

/** A run of this user on this storefront whose conversation still exists. */
export async function findOwnedRun(db: Executor, owner: { userId: string; storefront: string }, id: string): Promise<RunRow | undefined> {
  return db
    .selectFrom('agent_runs as r')
    .innerJoin('agent_conversations as c', 'c.id', 'r.conversation_id')
    .selectAll('r')
    .where('r.id', '=', id)
    .where('r.user_id', '=', owner.userId)
    .where('r.storefront', '=', owner.storefront)
    .where('c.deleted_at', 'is', null)
    .executeTakeFirst() as Promise<RunRow | undefined>;
}

export type RunChanges = Partial<Omit<RunRow, 'id' | 'status' | 'version'>>;

/**
 * Moves the run to `to` by compare-and-set: only from a status the table allows (`guard.from` narrows
 * it, never widens it) and, when given, only if the row is still at `version`. Bumps the version.
 * Returns the new version, or undefined when another change came first or the move is not allowed.
 */
export async function transitionRun(db: Executor, id: string, to: RunStatus, changes: RunChanges, guard: { from?: RunStatus[]; version?: number } = {}): Promise<number | undefined> {
  const from = runMovableFrom(to, guard.from);
  if (from.length === 0) return undefined;
  let query = db
    .updateTable('agent_runs')
    .set({ ...changes, status: to, version: sql<number>`version + 1` })
    .where('id', '=', id)
    .where('status', 'in', from);
  if (guard.version !== undefined) query = query.where('version', '=', guard.version);
  const row = await query.returning('version').executeTakeFirst();
  return row?.version;
}

/** Changes fields (not the status) if the row is still at `version`; returns the new version. */
export async function updateRunAt(db: Executor, id: string, version: number, changes: RunChanges): Promise<number | undefined> {
  const row = await db
    .updateTable('agent_runs')
    .set({ ...changes, version: sql<number>`version + 1` })
    .where('id', '=', id)
    .where('version', '=', version)
    .returning('version')
    .executeTakeFirst();
  return row?.version;
}

/** The conversation's queued runs in the order they start. */
export async function listQueuedRuns(db: Executor, conversationId: string): Promise<RunRow[]> {
  return db
    .selectFrom('agent_runs')
    .selectAll()
    .where('conversation_id', '=', conversationId)
    .where('status', '=', 'queued')
    .orderBy('run_no')
    .execute() as Promise<RunRow[]>;
}

export async function countQueuedRuns(db: Executor, conversationId: string): Promise<number> {
  const row = await db
    .selectFrom('agent_runs')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('conversation_id', '=', conversationId)
    .where('status', '=', 'queued')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Runs of a conversation that have not ended (to stop them when it is deleted). */
export async function listUnfinishedRuns(db: Executor, conversationId: string): Promise<RunRow[]> {
  return db
    .selectFrom('agent_runs')
    .selectAll()
    .where('conversation_id', '=', conversationId)
    .where('status', 'not in', ['completed', 'failed', 'cancelled'])
    .orderBy('run_no')
    .execute() as Promise<RunRow[]>;
}

/** The finished runs of a conversation before `runNo`, newest last (the history a run sees). */
export async function listEarlierRuns(db: Executor, conversationId: string, runNo: number, limit: number): Promise<RunRow[]> {
  const rows = (await db
    .selectFrom('agent_runs')
    .selectAll()
    .where('conversation_id', '=', conversationId)
    .where('run_no', '<', runNo)
    .orderBy('run_no', 'desc')
    .limit(limit)
    .execute()) as RunRow[];
  return rows.reverse();
}

/**
 * Commits `estimate` against the run's limit (AGENT.md "Budget"): only while the run is `running`
 * and settled + committed + estimate stays within the limit. Returns false when it does not fit or
 * the run no longer runs (a stop prevents dependent dispatch).
 */
export async function commitToRun(db: Executor, id: string, estimate: number, now: number): Promise<RunBudget | undefined> {
  const row = await db
    .updateTable('agent_runs')
    .set({ committed_micro: sql<number>`committed_micro + ${estimate}`, updated_at: now, version: sql<number>`version + 1` })
    .where('id', '=', id)
    .where('status', '=', 'running')
    .where(sql<boolean>`settled_micro + committed_micro + ${estimate} <= limit_micro`)
    .returning(BUDGET_COLUMNS)
    .executeTakeFirst();
  return row ? budgetOf(row) : undefined;
}


const BUDGET_COLUMNS = ['limit_micro', 'settled_micro', 'committed_micro', 'budget_version', 'version'] as const;

function budgetOf(row: { limit_micro: number; settled_micro: number; committed_micro: number; budget_version: number; version: number }): RunBudget {
  return {
    limitMicro: Number(row.limit_micro),
    settledMicro: Number(row.settled_micro),
    committedMicro: Number(row.committed_micro),
    budgetVersion: Number(row.budget_version),
    version: Number(row.version),
  };
}

/** Moves an operation's commitment to settled (its real cost, at most the commitment) or releases it. */
export async function settleOnRun(db: Executor, id: string, estimate: number, cost: number, now: number): Promise<RunBudget> {
  const row = await db
    .updateTable('agent_runs')
    .set({
      committed_micro: sql<number>`committed_micro - ${estimate}`,
      settled_micro: sql<number>`settled_micro + ${cost}`,
      updated_at: now,
      version: sql<number>`version + 1`,
    })
    .where('id', '=', id)
    .returning(BUDGET_COLUMNS)
    .executeTakeFirstOrThrow();
  return budgetOf(row);
}

/** A new limit by compare-and-set on the budget version; never below what is settled and committed. */
export async function changeRunLimit(db: Executor, id: string, expectedBudgetVersion: number, limit: number, now: number): Promise<RunBudget | undefined> {
  const row = await db
    .updateTable('agent_runs')
    .set({ limit_micro: limit, budget_version: sql<number>`budget_version + 1`, updated_at: now, version: sql<number>`version + 1` })
    .where('id', '=', id)
    .where('budget_version', '=', expectedBudgetVersion)
    .where(sql<boolean>`settled_micro + committed_micro <= ${limit}`)
    .returning(BUDGET_COLUMNS)
    .executeTakeFirst();
  return row ? budgetOf(row) : undefined;
}

/** Something outside the engine scheduled the run: a worker about to set its job aside sees it and runs it again. */
export async function bumpRunWake(db: Executor, id: string): Promise<void> {
  await db.updateTable('agent_runs').set({ wake_seq: sql<number>`wake_seq + 1` }).where('id', '=', id).execute();
}

/** The run's result changed (an artifact arrived): clients compare revisions to know. */
export async function bumpRunRevision(db: Executor, id: string): Promise<void> {
  await db.updateTable('agent_runs').set({ revision: sql<number>`revision + 1` }).where('id', '=', id).execute();
}

/** True when nothing scheduled the run since `wakeSeq` was read (taking the row's lock on PostgreSQL until the transaction ends). */
export async function noWakeSince(db: Executor, id: string, wakeSeq: number): Promise<boolean> {
  const result = await db.updateTable('agent_runs').set({ wake_seq: wakeSeq }).where('id', '=', id).where('wake_seq', '=', wakeSeq).executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

