/**
 * A member's monthly spend cap inside an organization (issue 33, items 1 and 3; migration 043),
 * written once as SQL and run by the three writers of a key's spend beside the per-key rule
 * (key-spend-rule.ts): the book over Kysely (api-key-spend.repository.ts), the SQLite chat writer
 * thread (sqlite-chat-statements.ts) and PostgreSQL's chat batch (`member_spend_move`,
 * `member_cap_room`, this text rendered; test/unit/ledger/member-spend-rule.test.ts holds the newest
 * migration that defines them to it).
 *
 * Every movement of a key's spend also moves its member's row of the month (the organization and the
 * member are the key's: a person's own key has no member and moves nothing). The row is upserted by
 * the deltas, then, when guarded, the movement is refused if the row went above the member's cap: the
 * row is moved back and the key's move undone by the caller. On PostgreSQL the upsert takes the row's
 * lock, so concurrent movements of one member are checked one after another; SQLite has one writer.
 */
export type MemberSpendParameter = 'key' | 'month' | 'spent' | 'held' | 'amount';

const MEMBER_ROW = 's.organization_id = k.user_id and s.user_id = k.member_id';
const UPSERT = (sign: '' | '-') =>
  `insert into organization_member_spend (organization_id, user_id, spend_month, spent_micro, held_micro) select user_id, member_id, cast(:month as text), ${sign}cast(:spent as bigint), ${sign}cast(:held as bigint) from api_keys where id = :key and member_id is not null on conflict (organization_id, user_id, spend_month) do update set spent_micro = organization_member_spend.spent_micro + excluded.spent_micro, held_micro = organization_member_spend.held_micro + excluded.held_micro`;

export const MEMBER_SPEND_RULE = {
  /** Moves the member's row of the month by the deltas (creating it); no row for a person's key. */
  move: UPSERT(''),
  /** The same movement taken back (a refused one). */
  unmove: UPSERT('-'),
  /** One row when the key's member is above their cap this month (after a guarded move: refuse it). */
  overCap: `select 1 as hit from api_keys k join organization_members m on m.organization_id = k.user_id and m.user_id = k.member_id join organization_member_spend s on ${MEMBER_ROW} and s.spend_month = :month where k.id = :key and m.monthly_cap_micro is not null and s.spent_micro + s.held_micro > m.monthly_cap_micro`,
  /**
   * What the member's cap leaves for a settlement that releases `amount` it held (no row: no cap, or
   * a person's key): a settlement charges no more, the rest is recorded as uncollected.
   */
  capRoom: `select m.monthly_cap_micro - (s.spent_micro + s.held_micro - :amount) as room from api_keys k join organization_members m on m.organization_id = k.user_id and m.user_id = k.member_id join organization_member_spend s on ${MEMBER_ROW} and s.spend_month = :month where k.id = :key and m.monthly_cap_micro is not null`,
} as const;

const PARAMETER = /:(key|month|spent|held|amount)\b/g;

/** The text with each `:name` as `?N`, N its place in `order` (SQLite's numbered parameters). */
export function numberedMember(text: string, order: readonly MemberSpendParameter[]): string {
  return text.replace(PARAMETER, (_, name: MemberSpendParameter) => {
    const at = order.indexOf(name);
    if (at < 0) throw new Error(`parameter :${name} has no place in ${order.join(', ')}`);
    return `?${at + 1}`;
  });
}

/** The text cut at its parameters (the Kysely rendering). */
export function memberPieces(text: string): { sql: string[]; parameters: MemberSpendParameter[] } {
  return { sql: text.split(PARAMETER).filter((_, i) => i % 2 === 0), parameters: [...text.matchAll(PARAMETER)].map((m) => m[1] as MemberSpendParameter) };
}

const PG_ARGUMENT: Record<MemberSpendParameter, string> = { key: 'key', month: 'month', spent: 'spent_delta', held: 'held_delta', amount: 'amount' };
const forPostgres = (text: string) => text.replace(PARAMETER, (_, name: MemberSpendParameter) => PG_ARGUMENT[name]);

/** The rule as PostgreSQL's functions, which its chat batch calls (migration 043). */
export function postgresMemberSpendFunctions(): string {
  return `CREATE OR REPLACE FUNCTION member_spend_move(key text, month text, spent_delta bigint, held_delta bigint, guarded boolean) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
  ${forPostgres(MEMBER_SPEND_RULE.move)};
  IF guarded AND EXISTS (${forPostgres(MEMBER_SPEND_RULE.overCap)}) THEN
    ${forPostgres(MEMBER_SPEND_RULE.unmove)};
    RETURN false;
  END IF;
  RETURN true;
END
$$;

CREATE OR REPLACE FUNCTION member_cap_room(key text, month text, amount bigint) RETURNS bigint LANGUAGE sql AS $$
  ${forPostgres(MEMBER_SPEND_RULE.capRoom).replace(' as room', '')}
$$;
`;
}
