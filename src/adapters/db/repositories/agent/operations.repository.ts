import { sql } from 'kysely';
import { operationMovableFrom } from '../../../../domain/agent/operation-state.ts';
import type { Executor } from '../../schema.ts';
import type { AgentOperationsTable } from '../../tables/agent.tables.ts';

export type OperationRow = Omit<AgentOperationsTable, 'cost_micro'> & { cost_micro: number };

export async function insertOperation(db: Executor, row: OperationRow): Promise<void> {
  await db.insertInto('agent_operations').values(row).execute();
}

export async function listRunOperations(db: Executor, runId: string): Promise<OperationRow[]> {
  return db.selectFrom('agent_operations').selectAll().where('run_id', '=', runId).orderBy('created_at').orderBy('id').execute() as Promise<OperationRow[]>;
}

export async function findOperationByRef(db: Executor, kind: OperationRow['kind'], refId: string): Promise<OperationRow | undefined> {
  return db.selectFrom('agent_operations').selectAll().where('kind', '=', kind).where('ref_id', '=', refId).executeTakeFirst() as Promise<OperationRow | undefined>;
}

/**
 * Ends a committed operation: `settled` at `cost`, or `released` (cost 0). The compare-and-set on
 * `committed` (the only state the table closes from) admits one writer, so the run's totals move exactly once whatever is retried.
 */
export async function closeOperation(db: Executor, id: string, state: 'settled' | 'released', cost: number, now: number): Promise<boolean> {
  const result = await db
    .updateTable('agent_operations')
    .set({ state, cost_micro: state === 'settled' ? cost : 0, settled_at: now })
    .where('id', '=', id)
    .where('state', 'in', operationMovableFrom(state))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export interface OperationLedgerMismatch {
  operationId: string;
  runId: string;
  kind: string;
  refId: string;
  state: string;
  costMicro: number;
  ledgerMicro: number | null;
}

/**
 * Operations whose run-side record disagrees with the ledger: a settled chat call's cost must be the
 * request's charge; a settled generation's cost its debit less its refund (the task ended); a
 * released generation must have been refunded in full.
 */
export async function findOperationLedgerMismatches(db: Executor): Promise<OperationLedgerMismatch[]> {
  const chat = await db
    .selectFrom('agent_operations as o')
    .leftJoin('chat_requests as c', 'c.id', 'o.ref_id')
    .select(['o.id', 'o.run_id', 'o.kind', 'o.ref_id', 'o.state', 'o.cost_micro', 'c.cost_micro as ledger'])
    .where('o.kind', '=', 'chat')
    .where('o.state', '<>', 'committed')
    .where((eb) => eb.or([eb('c.id', 'is', null).and('o.state', '=', 'settled').and('o.cost_micro', '>', 0), eb('c.cost_micro', '<>', eb.ref('o.cost_micro'))]))
    .execute();
  const generations = await db
    .selectFrom('agent_operations as o')
    .leftJoin('tasks as t', 't.id', 'o.ref_id')
    .select(['o.id', 'o.run_id', 'o.kind', 'o.ref_id', 'o.state', 'o.cost_micro', sql<number | null>`t.cost_micro - t.refunded_micro`.as('ledger')])
    .where('o.kind', '=', 'generation')
    .where('o.state', '<>', 'committed')
    .where((eb) => eb.or([eb('t.id', 'is', null), eb(sql<number>`t.cost_micro - t.refunded_micro`, '<>', eb.ref('o.cost_micro'))]))
    .execute();
  return [...chat, ...generations].map((r) => ({
    operationId: r.id,
    runId: r.run_id,
    kind: r.kind,
    refId: r.ref_id,
    state: r.state,
    costMicro: Number(r.cost_micro),
    ledgerMicro: r.ledger === null ? null : Number(r.ledger),
  }));
}
