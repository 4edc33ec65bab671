import { isPostgres } from '../dialect-of.ts';
import { sql } from 'kysely';
import type { Executor } from '../schema.ts';
import type { LedgerEntriesTable } from '../tables/foundation.tables.ts';

export type LedgerEntryRow = LedgerEntriesTable;

/**
 * Adds `amount` to the balance only if the result still covers what running requests hold
 * (`held_micro`, never below zero); the row lock this takes (PostgreSQL) or the single writer (SQLite)
 * serialises concurrent movements of one account. Returns the new balance, or undefined when the
 * guard refused (or the user does not exist).
 */
export async function applyGuardedBalanceChange(db: Executor, userId: string, amountMicro: number): Promise<number | undefined> {
  const row = await db
    .updateTable('users')
    .set({ balance_micro: sql<number>`balance_micro + ${amountMicro}` })
    .where('id', '=', userId)
    .where(sql<boolean>`balance_micro + ${amountMicro} >= held_micro`)
    .returning('balance_micro')
    .executeTakeFirst();
  return row?.balance_micro;
}

/**
 * Takes the user's account row lock first (PostgreSQL; SQLite has one writer). Lock order (issue 17):
 * a transaction that moves money and also changes a task locks the account before the task, as a
 * create does (debit, then insert), so that a refund and a batch of creates cannot wait on each other.
 */
export async function lockAccount(db: Executor, userId: string): Promise<void> {
  if (!isPostgres(db)) return;
  await db.selectFrom('users').select('id').where('id', '=', userId).forUpdate().execute();
}

/**
 * Inserts the entry unless one with the same (kind, reference) exists; true when inserted. Moved
 * through `apiKeyId` and naming no member, the entry names the key's member (an organization's key),
 * read in the insert.
 */
export async function insertEntryOnce(db: Executor, row: LedgerEntryRow, apiKeyId: string | null = null): Promise<boolean> {
  const result = await db
    .insertInto('ledger_entries')
    .values({ ...row, member_id: row.member_id ?? (apiKeyId === null ? null : db.selectFrom('api_keys').select('member_id').where('id', '=', apiKeyId)) })
    .onConflict((oc) => oc.columns(['kind', 'reference']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
}

export async function findEntry(db: Executor, kind: string, reference: string): Promise<LedgerEntryRow | undefined> {
  return db.selectFrom('ledger_entries').selectAll().where('kind', '=', kind).where('reference', '=', reference).executeTakeFirst();
}

export async function listEntries(db: Executor, userId: string, limit: number, beforeId?: string): Promise<LedgerEntryRow[]> {
  let query = db.selectFrom('ledger_entries').selectAll().where('user_id', '=', userId).orderBy('id', 'desc').limit(limit);
  if (beforeId) query = query.where('id', '<', beforeId);
  return query.execute();
}

export async function countUsersAndEntries(db: Executor): Promise<{ users: number; entries: number }> {
  const users = await db.selectFrom('users').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  const entries = await db.selectFrom('ledger_entries').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return { users: Number(users.n), entries: Number(entries.n) };
}
