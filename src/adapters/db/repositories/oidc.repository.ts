import type { Executor } from '../schema.ts';
import type { OidcIdentitiesTable, OidcSignInStatesTable } from '../tables/sessions.tables.ts';

export async function insertOidcSignInState(db: Executor, row: Omit<OidcSignInStatesTable, 'used_at'>): Promise<void> {
  await db.insertInto('oidc_sign_in_states').values({ ...row, used_at: null }).execute();
}

/**
 * Marks the state used, once, if it has not expired and this browser and provider started it, and
 * reads it back; undefined: unknown, used, expired, or another browser's or provider's.
 */
export async function consumeOidcSignInState(db: Executor, key: { stateHash: string; browserHash: string; provider: string }, now: number): Promise<OidcSignInStatesTable | undefined> {
  const stateHash = key.stateHash;
  const result = await db
    .updateTable('oidc_sign_in_states')
    .set({ used_at: now })
    .where('state_hash', '=', stateHash)
    .where('browser_hash', '=', key.browserHash)
    .where('provider', '=', key.provider)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) === 0) return undefined;
  return db.selectFrom('oidc_sign_in_states').selectAll().where('state_hash', '=', stateHash).executeTakeFirst();
}

export async function deleteExpiredOidcSignInStates(db: Executor, now: number): Promise<number> {
  const result = await db.deleteFrom('oidc_sign_in_states').where('expires_at', '<=', now).executeTakeFirst();
  return Number(result.numDeletedRows);
}

export async function findOidcIdentity(db: Executor, issuer: string, subject: string): Promise<OidcIdentitiesTable | undefined> {
  return db.selectFrom('oidc_identities').selectAll().where('issuer', '=', issuer).where('subject', '=', subject).executeTakeFirst();
}

/** Inserts the link unless one exists for (issuer, subject); true when this call inserted it. */
export async function insertOidcIdentity(db: Executor, row: OidcIdentitiesTable): Promise<boolean> {
  const inserted = await db
    .insertInto('oidc_identities')
    .values(row)
    .onConflict((oc) => oc.columns(['issuer', 'subject']).doNothing())
    .returning('subject')
    .executeTakeFirst();
  return inserted !== undefined;
}

export async function touchOidcIdentity(db: Executor, issuer: string, subject: string, email: string, now: number): Promise<void> {
  await db.updateTable('oidc_identities').set({ email, last_sign_in_at: now }).where('issuer', '=', issuer).where('subject', '=', subject).execute();
}
