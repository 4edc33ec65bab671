/**
 * A key's spend rows (migration 027): 'total' and one per calendar month, moved by the per-key spend
 * rule of key-spend-rule.ts, here over Kysely (both engines), in the caller's transaction, after the
 * user's row (the lock order of every money transaction). The SQLite chat thread and PostgreSQL's
 * chat batch run the same text.
 */
import { type RawBuilder, sql } from 'kysely';
import { spendMonthOf } from '../../../domain/ledger/key-spend-period.ts';
import type { Executor } from '../schema.ts';
import { KEY_SPEND_RULE, type KeySpendParameter, pieces } from './key-spend-rule.ts';
import { MEMBER_SPEND_RULE, memberPieces } from './member-spend-rule.ts';

type Values = Record<'key' | 'month' | 'spent' | 'held' | 'guarded', string | number>;

/** A statement of the rule with its parameters bound (cut once, at load). */
function bound(text: string): (values: Values) => RawBuilder<unknown> {
  const cut = pieces(text);
  return (values) => {
    const parts: unknown[] = [];
    cut.sql.forEach((piece, i) => {
      parts.push(sql.raw(piece));
      const name: KeySpendParameter | undefined = cut.parameters[i];
      if (name !== undefined) parts.push(values[name as keyof Values]);
    });
    return sql.join(parts, sql.raw(''));
  };
}

/** A statement of the member rule with its parameters bound. */
function boundMember(text: string): (values: Values) => RawBuilder<unknown> {
  const cut = memberPieces(text);
  return (values) => {
    const parts: unknown[] = [];
    cut.sql.forEach((piece, i) => {
      parts.push(sql.raw(piece));
      const name = cut.parameters[i];
      if (name !== undefined) parts.push(values[name as keyof Values]);
    });
    return sql.join(parts, sql.raw(''));
  };
}

const ENSURE_ROWS = bound(KEY_SPEND_RULE.ensureRows);
const MOVE_MEMBER = boundMember(MEMBER_SPEND_RULE.move);
const UNMOVE_MEMBER = boundMember(MEMBER_SPEND_RULE.unmove);
const MEMBER_OVER_CAP = boundMember(MEMBER_SPEND_RULE.overCap);

/** What a movement of a key's spend did: refused by the key's cap or its member's, nothing moved then. */
export type KeySpendMove = 'moved' | 'key_cap_reached' | 'member_cap_reached';
const MOVE_CAP_ROW = bound(KEY_SPEND_RULE.moveCapRow);
const MOVE_OTHER_ROW = bound(KEY_SPEND_RULE.moveOtherRow);

/**
 * Moves the key's rows of 'total' and the month of `at` by the deltas, and its member's row of the
 * month when it is an organization's key (member-spend-rule.ts); `guarded`: only within both caps.
 * Refused: nothing moved.
 */
export async function moveKeySpend(db: Executor, keyId: string, at: number, delta: { spentMicro: number; heldMicro: number }, guarded: boolean): Promise<KeySpendMove> {
  const values: Values = { key: keyId, month: spendMonthOf(at), spent: delta.spentMicro, held: delta.heldMicro, guarded: guarded ? 1 : 0 };
  await ENSURE_ROWS(values).execute(db);
  if (Number((await MOVE_CAP_ROW(values).execute(db)).numAffectedRows ?? 0) !== 1) return 'key_cap_reached';
  await MOVE_MEMBER(values).execute(db);
  if (guarded && (await MEMBER_OVER_CAP(values).execute(db)).rows.length > 0) {
    await UNMOVE_MEMBER(values).execute(db);
    await MOVE_CAP_ROW({ ...values, spent: -delta.spentMicro, held: -delta.heldMicro, guarded: 0 }).execute(db);
    return 'member_cap_reached';
  }
  await MOVE_OTHER_ROW(values).execute(db);
  return 'moved';
}

/** Each key's spend in the month of `at` (keys without a row spent nothing). */
export async function keySpendInMonth(db: Executor, keyIds: readonly string[], at: number): Promise<Map<string, number>> {
  if (keyIds.length === 0) return new Map();
  const rows = await db.selectFrom('api_key_spend').select(['key_id', 'spent_micro']).where('key_id', 'in', [...keyIds]).where('period', '=', spendMonthOf(at)).execute();
  return new Map(rows.map((r) => [r.key_id, Number(r.spent_micro)]));
}
