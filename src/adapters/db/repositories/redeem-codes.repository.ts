import { sql } from 'kysely';
import type { Executor } from '../schema.ts';
import type { RedeemCodesTable } from '../tables/payments.tables.ts';

export interface RedeemCodeRow extends Omit<RedeemCodesTable, 'redemptions'> {
  redemptions: number;
}

export async function insertRedeemCode(db: Executor, row: RedeemCodeRow): Promise<boolean> {
  const result = await db.insertInto('redeem_codes').values(row).onConflict((oc) => oc.column('code_hash').doNothing()).executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
}

export async function findRedeemCodeByHash(db: Executor, codeHash: string): Promise<RedeemCodeRow | undefined> {
  return db.selectFrom('redeem_codes').selectAll().where('code_hash', '=', codeHash).executeTakeFirst();
}

export async function findRedeemCode(db: Executor, id: string): Promise<RedeemCodeRow | undefined> {
  return db.selectFrom('redeem_codes').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function listRedeemCodes(db: Executor, limit: number, beforeId?: string): Promise<RedeemCodeRow[]> {
  let query = db.selectFrom('redeem_codes').selectAll().orderBy('id', 'desc').limit(limit);
  if (beforeId) query = query.where('id', '<', beforeId);
  return query.execute();
}

/**
 * Takes one redemption if the code is still usable at `now`: the guard is re-checked on the locked row
 * (PostgreSQL) or under the single writer (SQLite), so concurrent redemptions never pass the maximum.
 */
export async function takeRedemption(db: Executor, id: string, now: number): Promise<boolean> {
  const result = await db
    .updateTable('redeem_codes')
    .set({ redemptions: sql<number>`redemptions + 1` })
    .where('id', '=', id)
    .where(sql<boolean>`redemptions < max_redemptions`)
    .where('disabled_at', 'is', null)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Disables a code (idempotent: the first time is kept). */
export async function disableRedeemCode(db: Executor, id: string, now: number): Promise<RedeemCodeRow | undefined> {
  await db.updateTable('redeem_codes').set({ disabled_at: now }).where('id', '=', id).where('disabled_at', 'is', null).execute();
  return findRedeemCode(db, id);
}
