/**
 * The per-key spend rule (migration 027), written once as SQL and run by all three writers of a key's
 * spend: the book over Kysely (api-key-spend.repository.ts, both engines), the SQLite writer thread
 * (sqlite-chat-statements.ts) and PostgreSQL's chat batch, whose function `api_key_spend_move` is this
 * text rendered (postgresKeySpendFunctions; the newest migration that defines it must hold exactly
 * that, test/unit/ledger/key-spend-rule.test.ts, so a change to the rule is a new migration).
 *
 * A key has a spend row for 'total' and one per calendar month. A movement makes sure both exist,
 * moves the row of the key's cap period (its 'month' or 'total') by the deltas, only within the cap
 * when guarded (spent + held + the movement <= cap, in the same statement, so concurrent requests on
 * one key cannot pass it), and when that row moved, moves the other row alike. Refused: nothing moved.
 * No database library here: the writer thread loads it.
 */

/** No cap: a bound no spend reaches (below 2^63, a bigint on PostgreSQL). */
export const NO_CAP = '9000000000000000000';

/** The statements' parameters, named `:name` in the text. */
export type KeySpendParameter = 'key' | 'month' | 'spent' | 'held' | 'guarded' | 'amount';

/** The row of the key's cap period: its month when it caps each month, 'total' otherwise (or no key row). */
const CAP_PERIOD = "coalesce((select case when spend_cap_period = 'month' then :month else 'total' end from api_keys where id = :key), 'total')";
const MOVE = 'update api_key_spend set spent_micro = spent_micro + :spent, held_micro = held_micro + :held where key_id = :key';

/** The rule's statements. `guarded` is 1 or 0 (true or false on PostgreSQL's function). */
export const KEY_SPEND_RULE = {
  /** Both rows of the movement exist (at zero) before either moves. */
  ensureRows: "insert into api_key_spend (key_id, period) values (:key, 'total'), (:key, :month) on conflict do nothing",
  /** The row of the cap period; guarded: only within the cap. One row changed, or the movement is refused. */
  moveCapRow: `${MOVE} and period = ${CAP_PERIOD} and (not :guarded or spent_micro + held_micro + :spent + :held <= coalesce((select spend_cap_micro from api_keys where id = :key), ${NO_CAP}))`,
  /** The other row ('total' or the month), once the cap row moved. */
  moveOtherRow: `${MOVE} and period in ('total', :month) and period <> ${CAP_PERIOD}`,
  /**
   * What the key's cap leaves for a settlement that releases `amount` it held (no row: no cap): a
   * settlement charges no more, the rest is recorded as uncollected.
   */
  capRoom:
    "select k.spend_cap_micro - (s.spent_micro + s.held_micro - :amount) as room from api_keys k join api_key_spend s on s.key_id = k.id and s.period = case when k.spend_cap_period = 'month' then :month else 'total' end where k.id = :key and k.spend_cap_micro is not null",
} as const;

const PARAMETER = /:(key|month|spent|held|guarded|amount)\b/g;

/** The text with each `:name` as `?N`, N its place in `order` (SQLite's numbered parameters, bound positionally). */
export function numbered(text: string, order: readonly KeySpendParameter[]): string {
  return text.replace(PARAMETER, (_, name: KeySpendParameter) => {
    const at = order.indexOf(name);
    if (at < 0) throw new Error(`parameter :${name} has no place in ${order.join(', ')}`);
    return `?${at + 1}`;
  });
}

/** The text cut at its parameters: the SQL between them and their names, in order (the Kysely rendering). */
export function pieces(text: string): { sql: string[]; parameters: KeySpendParameter[] } {
  const sql = text.split(PARAMETER).filter((_, i) => i % 2 === 0);
  const parameters = [...text.matchAll(PARAMETER)].map((m) => m[1] as KeySpendParameter);
  return { sql, parameters };
}

/** The names PostgreSQL's functions give the parameters (their signatures are migration 027's). */
const PG_ARGUMENT: Record<KeySpendParameter, string> = { key: 'key', month: 'month', spent: 'spent_delta', held: 'held_delta', guarded: 'guarded', amount: 'amount' };

const forPostgres = (text: string) => text.replace(PARAMETER, (_, name: KeySpendParameter) => PG_ARGUMENT[name]);

/** The rule as PostgreSQL's functions (`api_key_spend_move`, `api_key_cap_room`), which its chat batch calls. */
export function postgresKeySpendFunctions(): string {
  return `CREATE OR REPLACE FUNCTION api_key_spend_move(key text, month text, spent_delta bigint, held_delta bigint, guarded boolean) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
  ${forPostgres(KEY_SPEND_RULE.ensureRows)};
  ${forPostgres(KEY_SPEND_RULE.moveCapRow)};
  IF NOT FOUND THEN RETURN false; END IF;
  ${forPostgres(KEY_SPEND_RULE.moveOtherRow)};
  RETURN true;
END
$$;

CREATE OR REPLACE FUNCTION api_key_cap_room(key text, month text, amount bigint) RETURNS bigint LANGUAGE sql AS $$
  ${forPostgres(KEY_SPEND_RULE.capRoom).replace(' as room', '')}
$$;
`;
}
