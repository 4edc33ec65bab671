import { sql } from 'kysely';
import type { AttemptTally } from '../../../ports/attempt-health.port.ts';
import type { Executor } from '../schema.ts';

export type { AttemptTally };

/** Ended media attempts per provider since `since` (attempts still running say nothing yet). */
export async function tallyEndedAttempts(db: Executor, since: number): Promise<AttemptTally[]> {
  const rows = await db
    .selectFrom('task_attempts')
    .select([
      'provider',
      sql<number>`sum(case when state = 'succeeded' then 1 else 0 end)`.as('ok'),
      sql<number>`sum(case when state in ('failed', 'abandoned') then 1 else 0 end)`.as('bad'),
      sql<number | null>`max(case when state = 'succeeded' then ended_at end)`.as('last_ok'),
    ])
    .where('started_at', '>=', since)
    .groupBy('provider')
    .execute();
  return rows.map((r) => ({ provider: r.provider, succeeded: Number(r.ok), failed: Number(r.bad), lastSucceededAt: r.last_ok === null ? null : Number(r.last_ok) }));
}

/** The newest failure of a provider's attempts since `since`. */
export async function latestFailedAttempt(db: Executor, provider: string, since: number): Promise<{ message: string; at: number } | undefined> {
  const row = await db
    .selectFrom('task_attempts')
    .select(['error_message', 'ended_at'])
    .where('provider', '=', provider)
    .where('state', 'in', ['failed', 'abandoned'])
    .where('started_at', '>=', since)
    .orderBy('ended_at', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row ? { message: row.error_message ?? 'error', at: Number(row.ended_at ?? 0) } : undefined;
}
