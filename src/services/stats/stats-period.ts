import { invalidInput } from '../../domain/errors.ts';

/** Statistics count whole calendar days in UTC. */
export const DAY_MS = 86_400_000;
/** The longest custom range: a year, leap day included. */
export const MAX_PERIOD_DAYS = 366;

export const STATS_RANGES = ['today', '7d', '30d', 'custom'] as const;
export type StatsRange = (typeof STATS_RANGES)[number];

export interface StatsPeriod {
  range: StatsRange;
  /** Day numbers since the epoch (UTC), both inclusive. */
  firstDay: number;
  lastDay: number;
  /** [startMs, endMs): the first instant of firstDay to the first instant after lastDay. */
  startMs: number;
  endMs: number;
}

export interface StatsQuery {
  range?: string;
  from?: string;
  to?: string;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/**
 * The period a statistics request asks for. `today`, `7d` and `30d` end with today (UTC) and count
 * 1, 7 and 30 days; `custom` takes `from` and `to` as calendar dates, both inclusive, at most 366 days.
 * `from`/`to` without `range` mean custom; with another range they are refused.
 */
export function resolveStatsPeriod(query: StatsQuery, now: number = Date.now()): StatsPeriod {
  const hasDates = query.from !== undefined || query.to !== undefined;
  const range = query.range ?? (hasDates ? 'custom' : 'today');
  if (!(STATS_RANGES as readonly string[]).includes(range)) {
    throw invalidInput(`range must be one of ${STATS_RANGES.join(', ')}; got ${JSON.stringify(range)}`, 'range');
  }
  const today = Math.floor(now / DAY_MS);
  if (range !== 'custom') {
    if (hasDates) throw invalidInput(`from and to are used only with range=custom (range is ${range})`, query.from !== undefined ? 'from' : 'to');
    const days = range === 'today' ? 1 : range === '7d' ? 7 : 30;
    return period(range as StatsRange, today - days + 1, today);
  }
  if (query.from === undefined) throw invalidInput('from is required with range=custom (a date like 2026-05-01)', 'from');
  if (query.to === undefined) throw invalidInput('to is required with range=custom (a date like 2026-05-31)', 'to');
  const firstDay = parseDay(query.from, 'from');
  const lastDay = parseDay(query.to, 'to');
  if (lastDay < firstDay) throw invalidInput(`to (${query.to}) is before from (${query.from})`, 'to');
  const days = lastDay - firstDay + 1;
  if (days > MAX_PERIOD_DAYS) throw invalidInput(`the range spans ${days} days; at most ${MAX_PERIOD_DAYS} are allowed`, 'to');
  return period('custom', firstDay, lastDay);
}

function period(range: StatsRange, firstDay: number, lastDay: number): StatsPeriod {
  return { range, firstDay, lastDay, startMs: firstDay * DAY_MS, endMs: (lastDay + 1) * DAY_MS };
}

/** A calendar date `YYYY-MM-DD` (a real one: no 2026-02-30) as a day number since the epoch. */
export function parseDay(value: string, field: string): number {
  const match = DATE.exec(value);
  const [year, month, day] = match ? [Number(match[1]), Number(match[2]), Number(match[3])] : [0, 0, 0];
  const ms = Date.UTC(year, month - 1, day);
  const valid = match !== null && year >= 1970 && new Date(ms).getUTCMonth() === month - 1 && new Date(ms).getUTCDate() === day;
  if (!valid) throw invalidInput(`${field} must be a calendar date like 2026-05-01; got ${JSON.stringify(value)}`, field);
  return ms / DAY_MS;
}

export function dayKey(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}
