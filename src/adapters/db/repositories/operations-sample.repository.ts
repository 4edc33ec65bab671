import type { Executor } from '../schema.ts';

export interface QueueKindSample {
  kind: string;
  /** Jobs of the kind in the table: due, leased and scheduled. */
  jobs: number;
  /** Of those, due now and held by no live lease: waiting for a worker. */
  waiting: number;
  /** When the longest-waiting one became due; null when none waits. */
  oldestDueAt: number | null;
}

/** The work queue by job kind, for the operations gauges (one grouped statement). */
export async function sampleQueue(db: Executor, now: number): Promise<QueueKindSample[]> {
  const rows = await db
    .selectFrom('jobs')
    .select((eb) => [
      'kind',
      eb.fn.countAll<number>().as('jobs'),
      eb.fn
        .sum<number>(eb.case().when(eb.and([eb('run_at', '<=', now), eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)])])).then(1).else(0).end())
        .as('waiting'),
      eb.fn
        .min<number | null>(eb.case().when(eb.and([eb('run_at', '<=', now), eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)])])).then(eb.ref('run_at')).end())
        .as('oldest'),
    ])
    .groupBy('kind')
    .execute();
  return rows.map((r) => ({ kind: r.kind, jobs: Number(r.jobs), waiting: Number(r.waiting ?? 0), oldestDueAt: r.oldest === null ? null : Number(r.oldest) }));
}

export interface HoldSample {
  /** Running text requests holding money. */
  holds: number;
  heldMicro: number;
  oldestCreatedAt: number | null;
}

/** The money held right now by running text requests (the agent's model calls among them). */
export async function sampleHolds(db: Executor): Promise<HoldSample> {
  const row = await db
    .selectFrom('chat_holds')
    .select((eb) => [eb.fn.countAll<number>().as('holds'), eb.fn.sum<number | null>('hold_micro').as('held'), eb.fn.min<number | null>('created_at').as('oldest')])
    .executeTakeFirst();
  return { holds: Number(row?.holds ?? 0), heldMicro: Number(row?.held ?? 0), oldestCreatedAt: row?.oldest == null ? null : Number(row.oldest) };
}
