/**
 * Money is integer micro-USD inside the system (1 USD = 1,000,000). Cents and decimal strings exist
 * only at the API edge.
 */
export const MICRO_PER_USD = 1_000_000;
export const MICRO_PER_CENT = 10_000;

const DECIMAL_USD = /^(\d{1,9})(?:\.(\d{1,6}))?$/;

/** Parses a decimal USD string exactly ("0.0825" → 82500). Refuses more than 6 decimals. */
export function usdToMicro(usd: string): number {
  const match = DECIMAL_USD.exec(usd.trim());
  if (!match) throw new Error(`not a USD amount with at most 6 decimals: ${JSON.stringify(usd)}`);
  const whole = Number(match[1]);
  const fraction = Number((match[2] ?? '').padEnd(6, '0'));
  return whole * MICRO_PER_USD + fraction;
}

/** Formats micro-USD as the shortest exact decimal USD string (82500 → "0.0825", 1000000 → "1"). */
export function microToUsd(micro: number): string {
  assertMicro(micro);
  const sign = micro < 0 ? '-' : '';
  const abs = Math.abs(micro);
  const whole = Math.floor(abs / MICRO_PER_USD);
  const fraction = String(abs % MICRO_PER_USD).padStart(6, '0').replace(/0+$/, '');
  return fraction ? `${sign}${whole}.${fraction}` : `${sign}${whole}`;
}

/** Balance as the API shows it: whole cents, rounded down, so we never show money that is not there. */
export function microToCentsFloor(micro: number): number {
  return Math.floor(micro / MICRO_PER_CENT);
}

/** What an account can spend: its balance less what running requests hold (never below zero). */
export function spendableMicro(account: { balance_micro: number; held_micro: number }): number {
  return Math.max(0, Number(account.balance_micro) - Number(account.held_micro));
}

export function centsToMicro(cents: number): number {
  if (!Number.isSafeInteger(cents)) throw new Error(`cents must be an integer, got ${cents}`);
  return cents * MICRO_PER_CENT;
}

export function assertMicro(value: number): void {
  if (!Number.isSafeInteger(value)) throw new Error(`micro-USD must be a safe integer, got ${value}`);
}
