import { AppError } from '../../domain/errors.ts';
import { MICRO_PER_CENT, microToCentsFloor, spendableMicro } from '../../domain/money.ts';
import type { TaskStatus } from '../../domain/tasks/task-status.ts';
import type { UsersRow } from '../../ports/store-rows/foundation.rows.ts';
import { DAY_MS, dayKey, resolveStatsPeriod, type StatsQuery } from './stats-period.ts';
import type { StatsPorts } from './stats-ports.ts';

export interface StatsBucket {
  key: string;
  /** Generations (media tasks, failed ones included) plus chat requests. */
  count: number;
  /** USD cents, refunded failures excluded. */
  cost: number;
}

export interface Statistics {
  from: string;
  to: string;
  totals: {
    balance: number;
    spent: number;
    spentAllTime: number;
    requests: number;
    succeeded: number;
    failed: number;
    inProgress: number;
    llmRequests: number;
    llmTokens: number;
  };
  byDay: StatsBucket[];
  byModel: StatsBucket[];
  byType: StatsBucket[];
  /** Generations and chat requests per API key id (`dashboard` for the session's own), most expensive first. */
  byApiKey: StatsBucket[];
}

/** Generation types in the order of the catalog; chat requests are TEXT. */
export const STATS_TYPES = ['IMAGE', 'VIDEO', 'MUSIC', 'TEXT'] as const;

/**
 * Exact cents: money is summed in integer micro-USD and converted once per figure. A micro-USD is a
 * ten-thousandth of a cent, so the figure is the exact amount with at most 4 decimals (6.7 for a
 * USD 0.067 image); nothing is rounded. `balance` alone is whole cents rounded down, as /user/me shows it.
 */
export function microToCentsExact(micro: number): number {
  return micro / MICRO_PER_CENT;
}

interface Accumulator {
  count: number;
  micro: number;
}

function add<K>(map: Map<K, Accumulator>, key: K, count: number, micro: number): void {
  let acc = map.get(key);
  if (!acc) {
    acc = { count: 0, micro: 0 };
    map.set(key, acc);
  }
  acc.count += count;
  acc.micro += micro;
}

const SUCCEEDED: ReadonlySet<string> = new Set<TaskStatus>(['finished', 'expired']);
const IN_PROGRESS: ReadonlySet<string> = new Set<TaskStatus>(['not_started', 'processing']);

/**
 * GET /api/v1/stats: spend and counts of one user over a period of UTC days. The database aggregates
 * per (day, model, type, status); this folds those few rows into totals and buckets.
 */
export async function computeStatistics(stats: StatsPorts, userId: string, query: StatsQuery, now: number = Date.now()): Promise<Statistics> {
  const period = resolveStatsPeriod(query, now);
  const { store } = stats;
  // One snapshot for every figure of the period, so that the buckets always add up to the totals
  // (a request that settles between two reads would otherwise count in one and not the other).
  const [{ user, tasks, chats, storageCharges, keys }, allTimeMicro] = await Promise.all([
    store.readSnapshot(async (tx) => ({
      user: existingUser(await store.findUser(tx, userId)),
      tasks: await store.aggregateTasks(tx, userId, period.firstDay, period.lastDay),
      chats: await store.aggregateChat(tx, userId, period.firstDay, period.lastDay),
      storageCharges: await store.aggregateStorageCharges(tx, userId, period.firstDay, period.lastDay),
      keys: await store.aggregateByApiKey(tx, userId, period.firstDay, period.lastDay),
    })),
    spentAllTime(stats, userId, now),
  ]);

  const days = new Map<number, Accumulator>();
  for (let day = period.firstDay; day <= period.lastDay; day++) days.set(day, { count: 0, micro: 0 });
  const models = new Map<string, Accumulator>();
  const types = new Map<string, Accumulator>(STATS_TYPES.map((t) => [t, { count: 0, micro: 0 }]));

  let spentMicro = 0;
  let requests = 0;
  let succeeded = 0;
  let failed = 0;
  let inProgress = 0;
  for (const row of tasks) {
    // A failed task was refunded in full when it failed: it costs nothing.
    const micro = row.status === 'failed' ? 0 : row.costMicro;
    spentMicro += micro;
    requests += row.count;
    if (SUCCEEDED.has(row.status)) succeeded += row.count;
    else if (row.status === 'failed') failed += row.count;
    else if (IN_PROGRESS.has(row.status)) inProgress += row.count;
    add(days, row.day, row.count, micro);
    add(models, row.model, row.count, micro);
    add(types, row.type, row.count, micro);
  }
  let llmRequests = 0;
  let llmTokens = 0;
  for (const row of chats) {
    spentMicro += row.costMicro;
    llmRequests += row.count;
    llmTokens += row.tokens;
    add(days, row.day, row.count, row.costMicro);
    add(models, row.model, row.count, row.costMicro);
    add(types, 'TEXT', row.count, row.costMicro);
  }

  // Paid storage (plans, upgrades, renewals): spend of type STORAGE, by plan; not requests.
  for (const row of storageCharges) {
    spentMicro += row.costMicro;
    add(days, row.day, 0, row.costMicro);
    add(models, row.planId, row.count, row.costMicro);
    add(types, 'STORAGE', row.count, row.costMicro);
  }

  const bucket = (key: string, acc: Accumulator): StatsBucket => ({ key, count: acc.count, cost: microToCentsExact(acc.micro) });
  const mostExpensiveFirst = (a: [string, Accumulator], b: [string, Accumulator]) =>
    b[1].micro - a[1].micro || b[1].count - a[1].count || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);

  return {
    from: new Date(period.startMs).toISOString(),
    to: new Date(period.endMs - 1).toISOString(),
    totals: {
      balance: microToCentsFloor(spendableMicro(user)),
      spent: microToCentsExact(spentMicro),
      spentAllTime: microToCentsExact(allTimeMicro),
      requests,
      succeeded,
      failed,
      inProgress,
      llmRequests,
      llmTokens,
    },
    byDay: [...days.entries()].sort((a, b) => a[0] - b[0]).map(([day, acc]) => bucket(dayKey(day), acc)),
    byModel: [...models.entries()].sort(mostExpensiveFirst).map(([key, acc]) => bucket(key, acc)),
    byType: [...types.entries()].sort(mostExpensiveFirst).map(([key, acc]) => bucket(key, acc)),
    byApiKey: keys
      .map((k): [string, Accumulator] => [k.apiKeyId ?? 'dashboard', { count: k.count, micro: k.costMicro }])
      .sort(mostExpensiveFirst)
      .map(([key, acc]) => bucket(key, acc)),
  };
}

/** The user's row; a user that does not exist is user_not_found, as everywhere. */
function existingUser(user: UsersRow | undefined): UsersRow {
  if (!user) throw new AppError('user_not_found', 'user not found');
  return user;
}

/** Later than any day: "every day after" in a range. */
const END_OF_TIME_DAY = 1_000_000_000;
/** A day can be settled once it ended more than 24 hours ago (rows are written with the writer's clock). */
const SETTLE_AFTER_DAYS = 2;

/**
 * Everything the user ever spent, read from the checkpoint of settled days plus the days after it.
 * The checkpoint moves forward here, lazily, over days that ended more than a day ago and hold no task
 * or chat request whose cost may still change (a task that will fail is refunded; a chat is billed
 * when it settles); it stops before the first such day.
 */
export async function spentAllTime(stats: StatsPorts, userId: string, now: number = Date.now()): Promise<number> {
  const { store } = stats;
  const db = stats.uow.direct;
  const settled = Math.floor(now / DAY_MS) - SETTLE_AFTER_DAYS;
  const stored = await store.findCheckpoint(db, userId);
  let base = stored ?? { throughDay: -1, spentMicro: 0 };
  if (base.throughDay < settled) {
    const open = await store.firstOpenDay(db, userId, base.throughDay, settled);
    const through = open === undefined ? settled : open - 1;
    if (through > base.throughDay) {
      const next = { throughDay: through, spentMicro: base.spentMicro + (await store.spentBetweenDays(db, userId, base.throughDay, through)) };
      await store.advanceCheckpoint(db, userId, stored, next, now);
      base = next;
    }
  }
  return base.spentMicro + (await store.spentBetweenDays(db, userId, base.throughDay, END_OF_TIME_DAY));
}
