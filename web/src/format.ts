/** Money and time as people read them. Amounts arrive as USD cents (may be fractional) or micro-USD. */
const usd = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', minimumFractionDigits: 2, maximumFractionDigits: 6 });
const usdShort = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', minimumFractionDigits: 2, maximumFractionDigits: 2 });
const integer = new Intl.NumberFormat('en-US');

// The units, and every conversion between them: the dashboard converts money nowhere else.
const CENTS_PER_DOLLAR = 100;
const MICRO_PER_DOLLAR = 1_000_000;
const MICRO_PER_CENT = MICRO_PER_DOLLAR / CENTS_PER_DOLLAR;

/** Cents (the admin and billing APIs' unit, possibly fractional) as dollars. */
export function centsToDollars(cents: number): number {
  return cents / CENTS_PER_DOLLAR;
}

/** Micro-USD (the agent's and estimates' unit) as dollars. */
export function microUsdToDollars(micro: number | string): number {
  return Number(micro) / MICRO_PER_DOLLAR;
}

/** Cents as micro-USD, to compare a balance in cents with an estimate in micro-USD. */
export function centsToMicroUsd(cents: number): number {
  return cents * MICRO_PER_CENT;
}

/** Dollars typed in a form ("12.50") as whole cents for the wire; NaN when the text is no number. */
export function dollarsToCents(text: string): number {
  return Math.round(Number(text) * CENTS_PER_DOLLAR);
}

/** A USD amount typed by a person ("0.5") as micro-USD, or undefined when it is not a positive amount. */
export function usdToMicroString(text: string): string | undefined {
  const trimmed = text.trim();
  if (!/^\d+(\.\d{1,6})?$/.test(trimmed)) return undefined;
  const [whole = '0', fraction = ''] = trimmed.split('.');
  const micro = BigInt(whole) * BigInt(MICRO_PER_DOLLAR) + BigInt(fraction.padEnd(6, '0'));
  return micro > 0n ? micro.toString() : undefined;
}

/** "2.50" → "2500000": dollars with at most two decimals to micro-USD, without floating point. */
export function dollarsToMicro(text: string): string | undefined {
  const match = /^\s*\$?\s*(\d{1,9})(?:\.(\d{1,2}))?\s*$/.exec(text);
  if (!match) return undefined;
  const cents = Number(match[1]) * CENTS_PER_DOLLAR + Number((match[2] ?? '').padEnd(2, '0'));
  return String(centsToMicroUsd(cents));
}

/** "2500000" → "2.50", for a form field's initial text. */
export function microToDollars(micro: string): string {
  return microUsdToDollars(micro).toFixed(2);
}

/** Micro-USD as the dollars a person typed, exactly: 1.5 dollars is "1.5", never a float's 1.4999999. */
export function microToExactDollars(micro: number): string {
  const whole = Math.floor(micro / MICRO_PER_DOLLAR);
  const fraction = String(micro % MICRO_PER_DOLLAR).padStart(6, '0').replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : String(whole);
}

/** The reverse, for text already checked to be dollars with at most six decimals ("2.5" → 2500000). */
export function exactDollarsToMicro(text: string): number {
  const [whole = '0', fraction = ''] = text.split('.');
  return Number(whole) * MICRO_PER_DOLLAR + Number(fraction.padEnd(6, '0'));
}

/** Exact: $0.067 for 6.7 cents. */
export function formatCents(cents: number): string {
  return usd.format(centsToDollars(cents));
}

/** Two decimals, for chart axes. */
export function formatCentsShort(cents: number): string {
  return usdShort.format(centsToDollars(cents));
}

/** Exact, to the micro-USD: for detail views (one charge, one run, a quote) and balances. */
export function formatMicroUsd(micro: number | string): string {
  return usd.format(microUsdToDollars(micro));
}

/** Dollars inside a sentence ("$1.50"; "$0.000500" under a cent), as the server's messages are rewritten. */
export function formatDollarsInText(dollars: number): string {
  return `$${dollars.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: dollars !== 0 && Math.abs(dollars) < 0.01 ? 6 : 2 })}`;
}

/**
 * Cents, for lists, buttons and notices: "Pay $6.00", not "Pay $5.998363". An amount under half a
 * cent that is not zero reads "< $0.01", never "$0.00".
 */
export function formatUsd(micro: number | string): string {
  const value = Number(micro);
  if (value !== 0 && Math.abs(value) < MICRO_PER_CENT / 2) return value < 0 ? '> -$0.01' : '< $0.01';
  return usdShort.format(microUsdToDollars(value));
}

/** The same for amounts that arrive in (possibly fractional) cents. */
export function formatUsdFromCents(cents: number): string {
  return formatUsd(Math.round(centsToMicroUsd(cents)));
}

export function formatCount(n: number): string {
  return integer.format(n);
}

export function formatTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso);
  return date.toLocaleString('en-GB', { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', timeZone: 'UTC' }) + ' UTC';
}

export function formatDay(key: string): string {
  const date = new Date(`${key}T00:00:00Z`);
  return date.toLocaleDateString('en-GB', { month: 'short', day: 'numeric', timeZone: 'UTC' });
}

export function relativeTime(iso: string | null | undefined): string {
  if (!iso) return 'never';
  const seconds = Math.round((Date.now() - Date.parse(iso)) / 1000);
  if (seconds < 60) return 'just now';
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.round(minutes / 60);
  if (hours < 48) return `${hours} h ago`;
  return `${Math.round(hours / 24)} days ago`;
}

export const STATUS_LABELS: Record<string, string> = {
  not_started: 'Queued',
  processing: 'Processing',
  finished: 'Finished',
  failed: 'Failed (refunded)',
  expired: 'Expired',
};

/** Why a range of days cannot be used, or undefined when it can (an open end is fine). */
export function reversedRangeProblem(from: string, to: string): string | undefined {
  return from && to && from > to ? 'The last day comes before the first: choose a “to” day on or after the “from” day.' : undefined;
}

export function todayUtc(offsetDays = 0): string {
  return new Date(Date.now() + offsetDays * 86_400_000).toISOString().slice(0, 10);
}

const byteUnits = ['B', 'KB', 'MB', 'GB', 'TB'];

/** 1,536 → "1.5 KB" (powers of 1,024, as quotas are). */
export function formatBytes(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < byteUnits.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${unit === 0 ? value : value.toFixed(value < 10 ? 1 : 0)} ${byteUnits[unit]}`;
}
