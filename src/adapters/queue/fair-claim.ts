import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { LaneCaps } from '../../ports/work-queue.port.ts';
import type { DatabaseHandle } from '../db/open-database.ts';
import type { Schema } from '../db/schema.ts';

export interface FairClaimRow {
  id: string;
  kind: string;
  ref_id: string;
  queue: string;
  run_at: number;
  attempts: number;
  lease_until: number | null;
  trace_context: string | null;
}

/**
 * The ids to lease in a claim of a laned queue (migration 034): due, unleased jobs ranked within
 * their target (a paused target's cap is 0, a target whose pause ended gets 1: the probe), the ones
 * under their target's cap ranked again within their tenant, and taken round-robin: every tenant's
 * first job, then every tenant's second, … each rank counted after the jobs the tenant (or target)
 * already has in flight in any process, so a tenant with many slots held comes last. Ranking the
 * target first keeps one dead destination from holding back the same user's other destinations.
 *
 * It reads every due job of the queue (a window over them), which is what fairness needs: a limited
 * read of the earliest ones would let one tenant's backlog fill the window.
 */
function fairIds(queue: string, limit: number, now: number, caps: LaneCaps) {
  return sql<{ id: string }>`
    WITH busy AS (
      SELECT lane_tenant, lane_target FROM jobs WHERE queue = ${queue} AND lease_until IS NOT NULL AND lease_until >= ${now}
    ),
    busy_tenant AS (SELECT lane_tenant AS k, count(*) AS n FROM busy WHERE lane_tenant IS NOT NULL GROUP BY lane_tenant),
    busy_target AS (SELECT lane_target AS k, count(*) AS n FROM busy WHERE lane_target IS NOT NULL GROUP BY lane_target),
    due AS (
      SELECT j.id, j.run_at, j.lane_tenant, j.lane_target,
        row_number() OVER (PARTITION BY j.lane_target ORDER BY j.run_at, j.id) AS target_rank,
        CASE WHEN t.paused_until IS NULL THEN ${caps.perTarget} WHEN t.paused_until > ${now} THEN 0 ELSE 1 END AS target_cap
      FROM jobs j
      LEFT JOIN job_targets t ON t.queue = j.queue AND t.target = j.lane_target
      WHERE j.queue = ${queue} AND j.run_at <= ${now} AND (j.lease_until IS NULL OR j.lease_until < ${now})
    ),
    eligible AS (
      SELECT due.id, due.run_at, due.lane_tenant,
        row_number() OVER (PARTITION BY due.lane_tenant ORDER BY due.run_at, due.id) AS tenant_rank
      FROM due
      LEFT JOIN busy_target bg ON bg.k = due.lane_target
      WHERE due.lane_target IS NULL OR due.target_rank + coalesce(bg.n, 0) <= due.target_cap
    )
    SELECT eligible.id FROM eligible
    LEFT JOIN busy_tenant bt ON bt.k = eligible.lane_tenant
    WHERE eligible.lane_tenant IS NULL OR eligible.tenant_rank + coalesce(bt.n, 0) <= ${caps.perTenant}
    ORDER BY eligible.tenant_rank + coalesce(bt.n, 0), eligible.run_at, eligible.id
    LIMIT ${limit}`;
}

/**
 * Leases the jobs `fairIds` picks. PostgreSQL: claims of one laned queue are serialized across
 * processes by a transaction-scoped advisory lock, so that two claims cannot both see a tenant
 * under its cap and together pass it (a claim is a few milliseconds; the lock ends with it); SKIP
 * LOCKED still steps over rows a plain claim of an older process holds. SQLite: one writer, so the
 * statement is exclusive already.
 */
export async function claimFairly(handle: DatabaseHandle, owner: string, queue: string, limit: number, now: number, leaseMs: number, caps: LaneCaps): Promise<FairClaimRow[]> {
  const leaseUntil = now + leaseMs;
  const lease = (db: Kysely<Schema>, picked: RawBuilder<unknown>) =>
    sql<FairClaimRow>`
      UPDATE jobs SET lease_owner = ${owner}, lease_until = ${leaseUntil}, attempts = attempts + 1
      WHERE id IN (${picked})
      RETURNING id, kind, ref_id, queue, run_at, attempts, lease_until, trace_context`.execute(db);
  if (handle.dialect !== 'postgres') return (await lease(handle.db, fairIds(queue, limit, now, caps))).rows;
  return handle.db.transaction().execute(async (tx) => {
    await sql`SELECT pg_advisory_xact_lock(hashtext(${`switchboard.fair-claim:${queue}`}))`.execute(tx);
    const picked = sql`SELECT id FROM jobs WHERE id IN (${fairIds(queue, limit, now, caps)}) FOR UPDATE SKIP LOCKED`;
    return (await lease(tx, picked)).rows;
  });
}
