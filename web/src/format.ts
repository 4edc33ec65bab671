/** Money and time as people read them. Amounts arrive as USD cents (may be fractional) or micro-USD. */
const usd = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', minimumFractionDigits: 2, maximumFractionDigits: 6 });
const usdShort = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', minimumFractionDigits: 2, maximumFractionDigits: 2 });
const integer = new Intl.NumberFormat('en-US');

/** Exact: $0.067 for 6.7 cents. */
export function formatCents(cents: number): string {
  return usd.format(cents / 100);
}

/** Two decimals, for chart axes. */
export function formatCentsShort(cents: number): string {
  return usdShort.format(cents / 100);
}

/** Exact, to the micro-USD: for detail views (one charge, one run, a quote) and balances. */
export function formatMicroUsd(micro: number | string): string {
  return usd.format(Number(micro) / 1_000_000);
}

/**
 * Cents, for lists, buttons and notices: "Pay $6.00", not "Pay $5.998363". An amount under half a
 * cent that is not zero reads "< $0.01", never "$0.00".
 */
export function formatUsd(micro: number | string): string {
  const value = Number(micro);
  if (value !== 0 && Math.abs(value) < 5_000) return value < 0 ? '> -$0.01' : '< $0.01';
  return usdShort.format(value / 1_000_000);
}

/** The same for amounts that arrive in (possibly fractional) cents. */
export function formatUsdFromCents(cents: number): string {
  return formatUsd(Math.round(cents * 10_000));
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
