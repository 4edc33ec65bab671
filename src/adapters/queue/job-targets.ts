import { sql } from 'kysely';
import type { TargetFailure, TargetStreak } from '../../ports/work-queue.port.ts';
import type { DatabaseHandle } from '../db/open-database.ts';

/**
 * The breaker state of lane targets (`job_targets`, migration 034), read by the fair claim. A
 * success deletes the row, so a healthy target costs no row and no write beyond that delete.
 */
export async function recordTargetSuccess(handle: DatabaseHandle, queue: string, target: string): Promise<void> {
  await handle.db.deleteFrom('job_targets').where('queue', '=', queue).where('target', '=', target).execute();
}

/**
 * Counts one more failure (an upsert, so concurrent failures of one target each count; the first
 * one of a streak sets when it began) and sets the pause the streak asks for. Two statements: the pause depends on the count the first one returns;
 * a failure counted without its pause (a crash between them) only pauses at the next failure.
 */
export async function recordTargetFailure(handle: DatabaseHandle, queue: string, target: string, now: number, pauseMs: (streak: TargetStreak) => number): Promise<TargetFailure> {
  const counted = await handle.db
    .insertInto('job_targets')
    .values({ queue, target, failures: 1, failing_since: now, paused_until: null, updated_at: now })
    .onConflict((oc) => oc.columns(['queue', 'target']).doUpdateSet({ failures: sql<number>`job_targets.failures + 1`, updated_at: now }))
    .returning(['failures', 'failing_since', 'paused_until'])
    .executeTakeFirstOrThrow();
  const failures = Number(counted.failures);
  const pause = pauseMs({ failures, failingForMs: Math.max(0, now - Number(counted.failing_since)) });
  if (pause <= 0) return { failures, pausedUntil: counted.paused_until === null ? undefined : Number(counted.paused_until) };
  const pausedUntil = now + pause;
  // Only ever later: a slow writer of an older failure must not shorten a newer, longer pause.
  await handle.db
    .updateTable('job_targets')
    .set({ paused_until: pausedUntil })
    .where('queue', '=', queue)
    .where('target', '=', target)
    .where((eb) => eb.or([eb('paused_until', 'is', null), eb('paused_until', '<', pausedUntil)]))
    .execute();
  return { failures, pausedUntil };
}
