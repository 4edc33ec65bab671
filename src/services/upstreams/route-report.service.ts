/**
 * The operator's margins (issue 32, item 6): per UTC day, model and route entry, what the clients were
 * charged, what the upstream charged us (the entry's cost recorded at settlement), the margin between
 * them, and how often requests failed over or failed. The period is asked for as GET /stats asks for
 * its own (today, 7d, 30d, or from..to).
 */
import type { RouteDayTotals, RouteReportKind, RouteReportStore } from '../../ports/route-report.port.ts';
import { dayKey, resolveStatsPeriod, type StatsPeriod, type StatsQuery } from '../stats/stats-period.ts';

export interface RouteReportRow {
  /** The UTC date, YYYY-MM-DD. */
  date: string;
  model: string;
  kind: RouteReportKind;
  provider: string | null;
  upstreamModel: string | null;
  requests: number;
  failed: number;
  failovers: number;
  revenueMicro: number;
  upstreamCostMicro: number;
  /** Revenue less upstream cost; null while some request's cost is unknown (`uncosted`). */
  marginMicro: number | null;
  uncosted: number;
  failoverRate: number;
  errorRate: number;
}

export interface RouteReportTotals {
  requests: number;
  failed: number;
  failovers: number;
  revenueMicro: number;
  upstreamCostMicro: number;
  marginMicro: number | null;
  uncosted: number;
}

export interface RouteReport {
  period: StatsPeriod;
  /** Newest day first; within a day, by revenue (largest first). */
  rows: RouteReportRow[];
  totals: RouteReportTotals;
}

const rate = (part: number, whole: number): number => (whole === 0 ? 0 : Math.round((part / whole) * 10_000) / 10_000);

export class RouteReportService {
  readonly #store: RouteReportStore;

  constructor(store: RouteReportStore) {
    this.#store = store;
  }

  async report(query: StatsQuery & { model?: string }, now: number = Date.now()): Promise<RouteReport> {
    const period = resolveStatsPeriod(query.range === undefined && query.from === undefined && query.to === undefined ? { range: '7d' } : query, now);
    const totals = await this.#store.routeDays(period.firstDay, period.lastDay, query.model);
    const rows = totals.map(rowOf).sort((a, b) => (a.date === b.date ? b.revenueMicro - a.revenueMicro || a.model.localeCompare(b.model) : a.date < b.date ? 1 : -1));
    return { period, rows, totals: sumOf(totals) };
  }
}

function rowOf(t: RouteDayTotals): RouteReportRow {
  return {
    date: dayKey(t.day),
    model: t.model,
    kind: t.kind,
    provider: t.provider,
    upstreamModel: t.upstreamModel,
    requests: t.requests,
    failed: t.failed,
    failovers: t.failovers,
    revenueMicro: t.revenueMicro,
    upstreamCostMicro: t.upstreamCostMicro,
    marginMicro: t.uncosted === 0 ? t.revenueMicro - t.upstreamCostMicro : null,
    uncosted: t.uncosted,
    failoverRate: rate(t.failovers, t.requests),
    errorRate: rate(t.failed, t.requests),
  };
}

function sumOf(totals: readonly RouteDayTotals[]): RouteReportTotals {
  const sum = (pick: (t: RouteDayTotals) => number) => totals.reduce((a, t) => a + pick(t), 0);
  const revenueMicro = sum((t) => t.revenueMicro);
  const upstreamCostMicro = sum((t) => t.upstreamCostMicro);
  const uncosted = sum((t) => t.uncosted);
  return {
    requests: sum((t) => t.requests),
    failed: sum((t) => t.failed),
    failovers: sum((t) => t.failovers),
    revenueMicro,
    upstreamCostMicro,
    marginMicro: uncosted === 0 ? revenueMicro - upstreamCostMicro : null,
    uncosted,
  };
}
