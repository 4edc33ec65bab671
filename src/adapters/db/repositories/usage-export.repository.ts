import type { LedgerEntriesRow as LedgerEntryRow } from '../../../ports/store-rows/foundation.rows.ts';
import type { ExportCursor } from '../../../ports/stats-store.port.ts';
import type { Executor } from '../schema.ts';

export type { ExportCursor } from '../../../ports/stats-store.port.ts';

/** A page of one user's ledger entries written in [startMs, endMs), newest first, after `cursor`. */
export async function ledgerEntriesBetween(db: Executor, userId: string, startMs: number, endMs: number, limit: number, cursor?: ExportCursor): Promise<LedgerEntryRow[]> {
  let query = db.selectFrom('ledger_entries').selectAll().where('user_id', '=', userId).where('created_at', '>=', startMs).where('created_at', '<', endMs);
  if (cursor) {
    query = query.where((eb) => eb.or([eb('created_at', '<', cursor.createdAt), eb.and([eb('created_at', '=', cursor.createdAt), eb('id', '<', cursor.id)])]));
  }
  return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}

/**
 * The email of each member whose key is an organization's (revoked keys too: a member who left is
 * still named in the past they spent), by member id; empty for a person's account.
 */
export async function memberEmails(db: Executor, accountId: string): Promise<Map<string, string>> {
  const rows = await db
    .selectFrom('api_keys')
    .innerJoin('users', 'users.id', 'api_keys.member_id')
    .select(['users.id', 'users.email'])
    .distinct()
    .where('api_keys.user_id', '=', accountId)
    .execute();
  return new Map(rows.flatMap((r) => (r.email ? [[r.id, r.email] as const] : [])));
}

/** The names of a user's API keys by id (revoked ones too: an export covers the past). */
export async function apiKeyNames(db: Executor, userId: string): Promise<Map<string, string>> {
  const rows = await db.selectFrom('api_keys').select(['id', 'name']).where('user_id', '=', userId).execute();
  return new Map(rows.map((r) => [r.id, r.name]));
}
