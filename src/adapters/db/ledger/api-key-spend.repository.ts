/**
 * A key's spend rows (migration 027): 'total' and one per calendar month. Every movement changes both
 * in the caller's transaction, after the user's row (the lock order of every money transaction); a
 * guarded movement applies only when the row of the key's cap period stays within the cap, in the
 * same statement, so concurrent requests on one key cannot pass it. The PostgreSQL chat batch does
 * the same in PL/pgSQL (api_key_spend_move), the SQLite chat thread in sqlite-chat-statements.ts.
 */
import { sql } from 'kysely';
import { spendMonthOf } from '../../../domain/ledger/key-spend-period.ts';
import type { Executor } from '../schema.ts';

/** No cap: a bound no spend reaches. */
export const NO_CAP = '9000000000000000000';

/**
 * Moves the key's rows of 'total' and the month of `at` by the deltas; `guarded`: only within the
 * cap. False when refused (nothing moved).
 */
export async function moveKeySpend(db: Executor, keyId: string, at: number, delta: { spentMicro: number; heldMicro: number }, guarded: boolean): Promise<boolean> {
  const month = spendMonthOf(at);
  await db
    .insertInto('api_key_spend')
    .values([
      { key_id: keyId, period: 'total', spent_micro: 0, held_micro: 0 },
      { key_id: keyId, period: month, spent_micro: 0, held_micro: 0 },
    ])
    .onConflict((oc) => oc.columns(['key_id', 'period']).doNothing())
    .execute();
  const key = await db.selectFrom('api_keys').select('spend_cap_period').where('id', '=', keyId).executeTakeFirst();
  const capRow = key?.spend_cap_period === 'month' ? month : 'total';
  const otherRow = capRow === 'total' ? month : 'total';
  const amount = delta.spentMicro + delta.heldMicro;
  const set = { spent_micro: sql<number>`spent_micro + ${delta.spentMicro}`, held_micro: sql<number>`held_micro + ${delta.heldMicro}` };
  let capped = db.updateTable('api_key_spend').set(set).where('key_id', '=', keyId).where('period', '=', capRow);
  if (guarded) {
    capped = capped.where(sql<boolean>`spent_micro + held_micro + ${amount} <= coalesce((select k.spend_cap_micro from api_keys k where k.id = ${keyId}), ${sql.raw(NO_CAP)})`);
  }
  if (Number((await capped.executeTakeFirst()).numUpdatedRows) !== 1) return false;
  await db.updateTable('api_key_spend').set(set).where('key_id', '=', keyId).where('period', '=', otherRow).execute();
  return true;
}

/** Each key's spend in the month of `at` (keys without a row spent nothing). */
export async function keySpendInMonth(db: Executor, keyIds: readonly string[], at: number): Promise<Map<string, number>> {
  if (keyIds.length === 0) return new Map();
  const rows = await db.selectFrom('api_key_spend').select(['key_id', 'spent_micro']).where('key_id', 'in', [...keyIds]).where('period', '=', spendMonthOf(at)).execute();
  return new Map(rows.map((r) => [r.key_id, Number(r.spent_micro)]));
}
