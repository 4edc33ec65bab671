/** The longest wait a create may ask for, and what a bare `Prefer: wait` means (as Replicate's sync mode). */
export const MAX_PREFER_WAIT_S = 60;

/**
 * The seconds of a `Prefer: wait=N` header (RFC 7240), as Replicate reads it for its sync mode: N from
 * 1 to 60; a bare `wait` is 60; a larger N is held to 60. Anything else (`wait=`, `wait=0`, `wait=abc`,
 * `wait=1.5`, no `wait` preference) is not a preference we can apply, and RFC 7240 has a server ignore
 * those: undefined. Several headers or comma-separated preferences: the first `wait` counts.
 */
export function preferWaitSeconds(header: string | string[] | undefined): number | undefined {
  const values = Array.isArray(header) ? header : header === undefined ? [] : [header];
  for (const value of values) {
    for (const preference of value.slice(0, 1_000).split(',')) {
      const [token = ''] = preference.split(';');
      const match = /^\s*wait\s*(?:=\s*"?([^"\s]*)"?)?\s*$/iu.exec(token);
      if (!match) continue;
      const given = match[1];
      if (given === undefined) return MAX_PREFER_WAIT_S;
      if (!/^[0-9]{1,9}$/u.test(given)) return undefined;
      const seconds = Number(given);
      return seconds < 1 ? undefined : Math.min(seconds, MAX_PREFER_WAIT_S);
    }
  }
  return undefined;
}
