import { compiledOnce } from '../sqlite/compiled-once.ts';
import type { Executor } from '../schema.ts';
import type { UsersTable } from '../tables/foundation.tables.ts';

export type UserRow = UsersTable;

export async function insertUser(db: Executor, row: UserRow): Promise<void> {
  await db.insertInto('users').values(row).execute();
}

/** What the account endpoint shows (its balance is what the user can spend: balance − held). */
export type UserSummaryRow = Pick<UserRow, 'id' | 'email' | 'balance_micro' | 'held_micro' | 'created_at'>;
const selectUserSummary = compiledOnce((db: Executor, id: string) =>
  db.selectFrom('users').select(['id', 'email', 'balance_micro', 'held_micro', 'created_at']).where('id', '=', id),
);

/**
 * GET /user/me on every call: five columns, compiled once, on the fast reader — where it answers
 * synchronously (SQLite), so the route can reply without a promise round.
 */
export function findUserSummary(db: Executor, id: string): UserSummaryRow | undefined | Promise<UserSummaryRow | undefined> {
  const rows = selectUserSummary(db, id);
  return Array.isArray(rows) ? rows[0] : rows.then((r) => r[0]);
}

const selectUserById = compiledOnce((db: Executor, id: string) => db.selectFrom('users').selectAll().where('id', '=', id));

/** The hottest read (every /user/me): compiled once (compiled-once.ts). */
export async function findUserById(db: Executor, id: string): Promise<UserRow | undefined> {
  return (await selectUserById(db, id))[0];
}

export async function findUserByEmail(db: Executor, email: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('email', '=', email.toLowerCase()).executeTakeFirst();
}

export async function countUsers(db: Executor): Promise<number> {
  const row = await db.selectFrom('users').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function listUsers(db: Executor, limit: number, afterId?: string): Promise<UserRow[]> {
  let query = db.selectFrom('users').selectAll().orderBy('id').limit(limit);
  if (afterId) query = query.where('id', '>', afterId);
  return query.execute();
}

export async function setWebhookSecret(db: Executor, userId: string, secret: string): Promise<void> {
  await db.updateTable('users').set({ webhook_secret: secret }).where('id', '=', userId).execute();
}
