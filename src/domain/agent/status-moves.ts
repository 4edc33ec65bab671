/**
 * A status table: for each status, the statuses a row may be in to move into it. Every status change
 * of an agent record is one compare-and-set from `movableFrom(table, to, from)`, so the table is the
 * only place where a move is allowed; a caller may name fewer statuses (it knows more about the row),
 * never one the table does not allow.
 */
export type StatusMoves<S extends string> = { readonly [To in S]: readonly S[] };

/** The statuses a move into `to` may start from: the table's, narrowed to the caller's `from` when given. */
export function movableFrom<S extends string>(table: StatusMoves<S>, to: S, from?: readonly S[]): S[] {
  const allowed = table[to];
  return from === undefined ? [...allowed] : from.filter((status) => allowed.includes(status));
}
