/**
 * The route report's two aggregates (ports/route-report.port.ts) over the requests' own rows, read by
 * creation day: chat requests through the created_at index of migration 038, tasks through their ids. The statements are plain SQL both
 * engines run alike; on SQLite they run on a thread of their own (sqlite-read-thread.ts), since the
 * rows they read grow with the traffic and the event loop is everyone's.
 */
import { type CompiledQuery, type Kysely, type RawBuilder, sql } from 'kysely';
import { idFloor } from '../../../domain/ids.ts';
import type { RouteDayTotals, RouteReportKind, RouteReportStore } from '../../../ports/route-report.port.ts';
import type { Schema } from '../schema.ts';
import type { SqliteFile } from '../sqlite/sqlite-file.ts';
import { readOnThread } from '../sqlite/sqlite-read-thread.ts';

const DAY_MS = 86_400_000;
const ID_SLACK_MS = 3_600_000;
/** Longest a report's read may take on SQLite before its thread is stopped. */
const SQLITE_READ_DEADLINE_MS = 20_000;

interface TotalsRow {
  day: number | string;
  model: string;
  provider: string | null;
  upstream_model: string | null;
  requests: number | string;
  failed: number | string | null;
  failovers: number | string | null;
  revenue: number | string | null;
  upstream_cost: number | string | null;
  uncosted: number | string | null;
}

function chatTotals(from: number, to: number, model: string | undefined): RawBuilder<TotalsRow> {
  const ofModel = model === undefined ? sql`` : sql`and model = ${model}`;
  return sql<TotalsRow>`select created_at / ${sql.lit(DAY_MS)} as day, model, provider, upstream_model,
      count(*) as requests,
      sum(case when status in ('failed', 'cut') then 1 else 0 end) as failed,
      sum(case when attempts > 1 then 1 else 0 end) as failovers,
      sum(cost_micro) as revenue,
      sum(coalesce(upstream_cost_micro, 0)) as upstream_cost,
      sum(case when provider is not null and upstream_cost_micro is null then 1 else 0 end) as uncosted
    from chat_requests
    where created_at >= ${from} and created_at < ${to} and status <> 'in_progress' ${ofModel}
    group by created_at / ${sql.lit(DAY_MS)}, model, provider, upstream_model`;
}

/**
 * A task is counted on the entry of its last attempt: the one that succeeded, or the last that failed.
 * Tasks are found by their primary key: a task's id is made from its created_at (domain/ids.ts), so a
 * range of days is a range of ids, and no index of its own slows every create. An id's time can run
 * ahead of created_at (ids stay monotonic within a process), hence the hour of slack above; created_at
 * decides.
 */
function mediaTotals(from: number, to: number, model: string | undefined): RawBuilder<TotalsRow> {
  const ofModel = model === undefined ? sql`` : sql`and t.model = ${model}`;
  const ids = sql`t.id >= ${idFloor('task', from)} and t.id < ${idFloor('task', to + ID_SLACK_MS)}`;
  return sql<TotalsRow>`select t.created_at / ${sql.lit(DAY_MS)} as day, t.model as model, a.provider as provider, a.upstream_model as upstream_model,
      count(*) as requests,
      sum(case when t.status = 'failed' then 1 else 0 end) as failed,
      sum(case when a.attempt_no > 1 then 1 else 0 end) as failovers,
      sum(t.cost_micro - t.refunded_micro) as revenue,
      sum(coalesce(a.upstream_cost_micro, 0)) as upstream_cost,
      sum(case when a.state = 'succeeded' and a.upstream_cost_micro is null then 1 else 0 end) as uncosted
    from tasks t
    left join task_attempts a on a.task_id = t.id and a.attempt_no = (select max(x.attempt_no) from task_attempts x where x.task_id = t.id)
    where ${ids} and t.created_at >= ${from} and t.created_at < ${to} ${ofModel}
    group by t.created_at / ${sql.lit(DAY_MS)}, t.model, a.provider, a.upstream_model`;
}

const count = (v: number | string | null): number => Number(v ?? 0);

function totalsOf(rows: readonly TotalsRow[], kind: RouteReportKind): RouteDayTotals[] {
  return rows.map((r) => ({
    day: count(r.day),
    model: r.model,
    kind,
    provider: r.provider,
    upstreamModel: r.upstream_model,
    requests: count(r.requests),
    failed: count(r.failed),
    failovers: count(r.failovers),
    revenueMicro: count(r.revenue),
    upstreamCostMicro: count(r.upstream_cost),
    uncosted: count(r.uncosted),
  }));
}

export class DbRouteReportStore implements RouteReportStore {
  readonly #db: Kysely<Schema>;
  readonly #sqliteFile: SqliteFile | undefined;

  /** `sqliteFile`: the SQLite file to read on a thread of its own; undefined on PostgreSQL (and in memory, read in place). */
  constructor(db: Kysely<Schema>, sqliteFile: SqliteFile | undefined) {
    this.#db = db;
    this.#sqliteFile = sqliteFile;
  }

  async routeDays(firstDay: number, lastDay: number, model?: string): Promise<RouteDayTotals[]> {
    const from = firstDay * DAY_MS;
    const to = (lastDay + 1) * DAY_MS;
    const [chat, media] = await Promise.all([this.#read(chatTotals(from, to, model).compile(this.#db)), this.#read(mediaTotals(from, to, model).compile(this.#db))]);
    return [...totalsOf(chat, 'chat'), ...totalsOf(media, 'media')];
  }

  async #read(query: CompiledQuery<TotalsRow>): Promise<TotalsRow[]> {
    if (this.#sqliteFile) return readOnThread<TotalsRow>(this.#sqliteFile.path, query.sql, query.parameters, SQLITE_READ_DEADLINE_MS);
    return (await this.#db.executeQuery(query)).rows;
  }
}
