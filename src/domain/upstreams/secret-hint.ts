/**
 * What the operator sees of an upstream secret: its prefix up to the first dash (at most 4 characters)
 * and its last 4 characters, `sk-…abcd`. A secret of 12 characters or fewer shows only `…` and its
 * last 2: a hint must never give away a short secret.
 */
export function secretHint(secret: string): string {
  if (secret === '') return '';
  if (secret.length <= 12) return `…${secret.slice(-2)}`;
  const dash = secret.indexOf('-');
  const prefix = dash > 0 && dash <= 4 ? secret.slice(0, dash + 1) : '';
  return `${prefix}…${secret.slice(-4)}`;
}
