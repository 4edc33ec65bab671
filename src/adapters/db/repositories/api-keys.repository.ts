import type { Executor } from '../schema.ts';
import type { ApiKeysTable } from '../tables/foundation.tables.ts';

export type ApiKeyRow = ApiKeysTable;

export async function insertApiKey(db: Executor, row: ApiKeyRow): Promise<void> {
  await db.insertInto('api_keys').values(row).execute();
}

/** A key the authenticator admits, with its account's tokens per minute (an organization's, migration 044). */
export type ActiveKeyRow = ApiKeyRow & { account_tpm_limit: number | null };

/** The key of this hash, unless it is revoked or expired at `now`. */
export async function findActiveKeyByHash(db: Executor, keyHash: string, now: number = Date.now()): Promise<ActiveKeyRow | undefined> {
  const row = await db
    .selectFrom('api_keys')
    .innerJoin('users', 'users.id', 'api_keys.user_id')
    .selectAll('api_keys')
    .select('users.tpm_limit as account_tpm_limit')
    .where('api_keys.key_hash', '=', keyHash)
    .where('api_keys.revoked_at', 'is', null)
    .where((eb) => eb.or([eb('api_keys.expires_at', 'is', null), eb('api_keys.expires_at', '>', now)]))
    .executeTakeFirst();
  return row ? { ...row, account_tpm_limit: row.account_tpm_limit === null || row.account_tpm_limit === undefined ? null : Number(row.account_tpm_limit) } : undefined;
}

export async function findApiKey(db: Executor, id: string): Promise<ApiKeyRow | undefined> {
  return db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function listApiKeys(db: Executor, userId: string): Promise<ApiKeyRow[]> {
  return db.selectFrom('api_keys').selectAll().where('user_id', '=', userId).orderBy('created_at', 'desc').execute();
}

/** Revokes once: returns false when the key was already revoked or does not exist. */
export async function revokeApiKey(db: Executor, id: string, userId: string | undefined, now: number): Promise<boolean> {
  let query = db.updateTable('api_keys').set({ revoked_at: now }).where('id', '=', id).where('revoked_at', 'is', null);
  if (userId !== undefined) query = query.where('user_id', '=', userId);
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function touchApiKeys(db: Executor, lastUsed: ReadonlyMap<string, number>): Promise<void> {
  for (const [id, at] of lastUsed) {
    await db
      .updateTable('api_keys')
      .set({ last_used_at: at })
      .where('id', '=', id)
      .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', at)]))
      .execute();
  }
}

/** Changes a key's name, limit columns and management flag; false when the user has no such key. */
export async function updateApiKey(db: Executor, id: string, userId: string, changes: Partial<Omit<ApiKeyRow, 'id' | 'user_id' | 'key_hash' | 'prefix' | 'created_at'>>): Promise<boolean> {
  if (Object.keys(changes).length === 0) return (await db.selectFrom('api_keys').select('id').where('id', '=', id).where('user_id', '=', userId).executeTakeFirst()) !== undefined;
  const result = await db.updateTable('api_keys').set(changes).where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Of these key ids, the ones that are revoked or gone. */
export async function findRevokedKeyIds(db: Executor, ids: readonly string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const live = await db.selectFrom('api_keys').select('id').where('id', 'in', [...ids]).where('revoked_at', 'is', null).execute();
  const alive = new Set(live.map((row) => row.id));
  return ids.filter((id) => !alive.has(id));
}
