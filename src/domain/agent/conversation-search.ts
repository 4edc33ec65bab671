/**
 * The search words of `q` as a full-text query: every word must match, as a prefix (so a word being
 * typed finds its conversations). Only letters and digits reach the engine's query syntax, written
 * for PostgreSQL's `to_tsquery` or SQLite's FTS5 `match`.
 */
export function searchExpression(q: string, postgres: boolean): string | undefined {
  const words = (q.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).slice(0, 8).map((w) => w.slice(0, 64));
  if (words.length === 0) return undefined;
  return postgres ? words.map((w) => `${w}:*`).join(' & ') : words.map((w) => `"${w}"*`).join(' ');
}
