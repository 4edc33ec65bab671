/**
 * A NUL (`%00`) in a request's path or query: ids and parameters go into SQL, and PostgreSQL text
 * cannot hold a NUL (a 500 there, a stored oddity on SQLite). Refused on every route before anything
 * reads them, naming where it is. JSON bodies have the same rule (src/domain/json-text.ts).
 */
const ENCODED_NUL = /%00/i;

/** `path`, the query parameter's name, or `query`; undefined when the target holds no NUL. */
export function nulInTarget(url: string): string | undefined {
  if (!ENCODED_NUL.test(url)) return undefined;
  const q = url.indexOf('?');
  if (q === -1 || ENCODED_NUL.test(url.slice(0, q))) return 'path';
  for (const pair of url.slice(q + 1).split('&')) {
    if (!ENCODED_NUL.test(pair)) continue;
    const name = pair.split('=')[0] ?? '';
    if (ENCODED_NUL.test(name)) return 'query';
    try {
      return decodeURIComponent(name.replace(/\+/gu, ' ')) || 'query';
    } catch {
      return 'query';
    }
  }
  return 'query';
}
