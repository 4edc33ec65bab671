/**
 * The operator's per-day report of what each route earned and cost (issue 32, item 6), read from the
 * requests' own rows over all users: one row per UTC day, model and route entry (the entry that served,
 * or the last one tried). The figures are sums the database computes; margins and rates are the
 * service's (services/upstreams/route-report.service.ts).
 */

export type RouteReportKind = 'chat' | 'media';

export interface RouteDayTotals {
  /** The UTC day number (milliseconds since the epoch / 86,400,000). */
  day: number;
  model: string;
  kind: RouteReportKind;
  /** Null: no upstream was reached (a request refused before any call, a task that never started). */
  provider: string | null;
  upstreamModel: string | null;
  requests: number;
  /** Requests that ended in an upstream's error: chat `failed` or `cut`; media tasks `failed`. */
  failed: number;
  /** Requests that needed more than one entry. */
  failovers: number;
  /** What the clients were charged (media: less refunds). */
  revenueMicro: number;
  /** What the upstreams charged us, as recorded at settlement (the entries' costs then). */
  upstreamCostMicro: number;
  /** Requests that reached an upstream whose entry had no cost set (their cost is unknown, not 0). */
  uncosted: number;
}

export interface RouteReportStore {
  /** Totals of requests created on UTC days firstDay..lastDay (inclusive). */
  routeDays(firstDay: number, lastDay: number, model?: string): Promise<RouteDayTotals[]>;
}
