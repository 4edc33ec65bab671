/**
 * The periods a key's spend is counted in (migration 027, api_key_spend): 'total', and the calendar
 * month (UTC) of the charge, or of the hold for a chat request (its settlement lands in the same
 * month, so a hold and its release never straddle two rows).
 */
export type KeySpendCapPeriod = 'total' | 'month';

export const KEY_SPEND_CAP_PERIODS: readonly KeySpendCapPeriod[] = ['total', 'month'];

/** 'YYYY-MM' of the instant, in UTC. */
export function spendMonthOf(at: number): string {
  return new Date(at).toISOString().slice(0, 7);
}
