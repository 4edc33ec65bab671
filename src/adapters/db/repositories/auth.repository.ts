import type { Executor } from '../schema.ts';
import type { SessionsTable } from '../tables/sessions.tables.ts';

export type SessionRow = SessionsTable;

/** A live session with what authorization needs of its user, read in one query. */
export interface SessionWithUser extends SessionRow {
  is_admin: number;
}

export async function insertSession(db: Executor, row: SessionRow): Promise<void> {
  await db.insertInto('sessions').values(row).execute();
}

export async function findSessionByTokenHash(db: Executor, tokenHash: string): Promise<SessionWithUser | undefined> {
  return db
    .selectFrom('sessions')
    .innerJoin('users', 'users.id', 'sessions.user_id')
    .selectAll('sessions')
    .select('users.is_admin')
    .where('sessions.token_hash', '=', tokenHash)
    .executeTakeFirst();
}

/** Slides the idle expiry forward (only ever forward, so two concurrent renewals cannot shorten it). */
export async function renewSession(db: Executor, id: string, now: number, expiresAt: number): Promise<void> {
  await db.updateTable('sessions').set({ last_seen_at: now, expires_at: expiresAt }).where('id', '=', id).where('expires_at', '<', expiresAt).execute();
}

export async function deleteSession(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('sessions').where('id', '=', id).execute();
}

/** Every session of the user except `keepId` (a password change signs out the other browsers). */
/** Deletes every session of the user but `keepId`; returns the ids it deleted. */
export async function deleteOtherSessions(db: Executor, userId: string, keepId: string | undefined): Promise<string[]> {
  let query = db.deleteFrom('sessions').where('user_id', '=', userId);
  if (keepId !== undefined) query = query.where('id', '!=', keepId);
  const rows = await query.returning('id').execute();
  return rows.map((row) => row.id);
}

/** The client addresses the user's sessions were opened from (addresses that signed in before). */
export async function listSessionAddresses(db: Executor, userId: string): Promise<string[]> {
  const rows = await db.selectFrom('sessions').select('ip').where('user_id', '=', userId).limit(200).execute();
  return rows.map((row) => row.ip).filter((ip): ip is string => typeof ip === 'string' && ip !== '');
}

export async function deleteExpiredSessions(db: Executor, now: number): Promise<number> {
  const result = await db.deleteFrom('sessions').where('expires_at', '<=', now).executeTakeFirst();
  return Number(result.numDeletedRows);
}

export async function setPasswordHash(db: Executor, userId: string, passwordHash: string): Promise<void> {
  await db.updateTable('users').set({ password_hash: passwordHash }).where('id', '=', userId).execute();
}

/** Sets the first password of a user who has none; false when one was set meanwhile (the guard). */
export async function setFirstPasswordHash(db: Executor, userId: string, passwordHash: string): Promise<boolean> {
  const result = await db.updateTable('users').set({ password_hash: passwordHash }).where('id', '=', userId).where('password_hash', 'is', null).executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Returns whether a user was changed. */
export async function setAdminFlag(db: Executor, userId: string, isAdmin: boolean): Promise<boolean> {
  const result = await db.updateTable('users').set({ is_admin: isAdmin ? 1 : 0 }).where('id', '=', userId).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function insertSignInLink(db: Executor, row: { token_hash: string; user_id: string; created_at: number; expires_at: number }): Promise<void> {
  await db.insertInto('sign_in_links').values({ ...row, used_at: null }).execute();
}

/** Marks the link used, once, if it has not expired: its user, or undefined (unknown, used or expired). */
export async function consumeSignInLink(db: Executor, tokenHash: string, now: number): Promise<string | undefined> {
  const result = await db
    .updateTable('sign_in_links')
    .set({ used_at: now })
    .where('token_hash', '=', tokenHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) === 0) return undefined;
  const row = await db.selectFrom('sign_in_links').select('user_id').where('token_hash', '=', tokenHash).executeTakeFirst();
  return row?.user_id;
}

/** Of these session ids, the ones signed out, deleted or expired at `now`. */
export async function findEndedSessionIds(db: Executor, ids: readonly string[], now: number): Promise<string[]> {
  if (ids.length === 0) return [];
  const live = await db
    .selectFrom('sessions')
    .select('id')
    .where('id', 'in', [...ids])
    .where('expires_at', '>', now)
    .where('absolute_expires_at', '>', now)
    .execute();
  const alive = new Set(live.map((row) => row.id));
  return ids.filter((id) => !alive.has(id));
}
