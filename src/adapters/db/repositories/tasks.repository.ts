import type { AttemptState, TaskStatus } from '../../../domain/tasks/task-status.ts';
import { allowedFrom } from '../../../domain/tasks/task-status.ts';
import { sql } from 'kysely';
import { completeJobIn } from './jobs.repository.ts';
import { compiledOnce } from '../sqlite/compiled-once.ts';
import { isPostgres } from '../dialect-of.ts';
import type { Executor } from '../schema.ts';
import type { StoredFilesTable, TaskAttemptsTable, TasksTable } from '../tables/media.tables.ts';
import type { TaskSuccess } from '../../../ports/task-store.port.ts';


export type TaskRow = TasksTable;
export type AttemptRow = TaskAttemptsTable;
export type StoredFileRow = StoredFilesTable;

export async function insertTask(db: Executor, row: TaskRow): Promise<void> {
  await db.insertInto('tasks').values(row).execute();
}

const selectTask = compiledOnce((db: Executor, id: string) => db.selectFrom('tasks').selectAll().where('id', '=', id));
const selectUserTask = compiledOnce((db: Executor, id: string, userId: string) =>
  db.selectFrom('tasks').selectAll().where('id', '=', id).where('user_id', '=', userId),
);
/** The columns GET /task/status shows (the row without the request, which can be large). */
export type TaskStatusRow = Pick<TaskRow, 'id' | 'status' | 'files_json' | 'output_json' | 'created_at' | 'error_message' | 'expires_at'>;
const selectUserTaskStatus = compiledOnce((db: Executor, id: string, userId: string) =>
  db
    .selectFrom('tasks')
    .select(['id', 'status', 'files_json', 'output_json', 'created_at', 'error_message', 'expires_at'])
    .where('id', '=', id)
    .where('user_id', '=', userId),
);
const selectAttempts = compiledOnce((db: Executor, taskId: string) =>
  db.selectFrom('task_attempts').selectAll().where('task_id', '=', taskId).orderBy('attempt_no'),
);

export async function findTask(db: Executor, id: string): Promise<TaskRow | undefined> {
  return (await selectTask(db, id))[0];
}

/** A task as its owner sees it: another user's task does not exist (GET /task/status: compiled once). */
export async function findUserTask(db: Executor, userId: string, id: string): Promise<TaskRow | undefined> {
  return (await selectUserTask(db, id, userId))[0];
}

export async function findTaskByIdempotencyKey(db: Executor, userId: string, key: string): Promise<TaskRow | undefined> {
  return db.selectFrom('tasks').selectAll().where('user_id', '=', userId).where('idempotency_key', '=', key).executeTakeFirst();
}

/**
 * Compare-and-set of the status: moves the task to `to` only from a status that allows it, and only
 * if it is still `from` (when given). Returns whether this call made the change.
 */
export async function transitionTask(
  db: Executor,
  id: string,
  to: TaskStatus,
  changes: Partial<Omit<TaskRow, 'id' | 'status'>>,
  from?: TaskStatus[],
): Promise<boolean> {
  const allowed = from ?? allowedFrom(to);
  if (allowed.length === 0) return false;
  const result = await db
    .updateTable('tasks')
    .set({ ...changes, status: to })
    .where('id', '=', id)
    .where('status', 'in', allowed)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** The hottest read of all (clients poll it): only the columns of the status response. */
export async function findUserTaskStatus(db: Executor, userId: string, id: string): Promise<TaskStatusRow | undefined> {
  return (await selectUserTaskStatus(db, id, userId))[0];
}

export async function listAttempts(db: Executor, taskId: string): Promise<AttemptRow[]> {
  return selectAttempts(db, taskId);
}

/**
 * Tasks and their latest attempts, for many tasks in two statements (the worker reads every task it
 * claims at once). Missing ids are simply absent from the map.
 */
export async function findTasksWithLatestAttempt(db: Executor, ids: string[]): Promise<Map<string, { task: TaskRow; attempt: AttemptRow | undefined }>> {
  const out = new Map<string, { task: TaskRow; attempt: AttemptRow | undefined }>();
  if (ids.length === 0) return out;
  const tasks = await db.selectFrom('tasks').selectAll().where('id', 'in', ids).execute();
  if (tasks.length === 0) return out;
  const attempts = await db
    .selectFrom('task_attempts')
    .selectAll()
    .where(
      'task_id',
      'in',
      tasks.map((t) => t.id),
    )
    .execute();
  for (const task of tasks) out.set(task.id, { task, attempt: undefined });
  for (const attempt of attempts) {
    const entry = out.get(attempt.task_id);
    if (entry && (!entry.attempt || attempt.attempt_no > entry.attempt.attempt_no)) entry.attempt = attempt;
  }
  return out;
}

export async function findAttempt(db: Executor, id: string): Promise<AttemptRow | undefined> {
  return db.selectFrom('task_attempts').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function insertAttempt(db: Executor, row: AttemptRow): Promise<void> {
  await db.insertInto('task_attempts').values(row).execute();
}

/**
 * The first attempt of a task that has not started: records the attempt (before anything is sent) and
 * moves the task from `not_started` to `processing`, atomically. PostgreSQL: one statement (a
 * data-modifying WITH); SQLite: one transaction of two. Returns whether the task was still open
 * (not ended, e.g. by a client's cancel) when the attempt was recorded: when not, nothing may be sent.
 */
export async function insertFirstAttempt(db: Executor, row: AttemptRow, now: number): Promise<boolean> {
  if (isPostgres(db)) {
    const columns = Object.keys(row) as Array<keyof AttemptRow>;
    // Every part of a WITH sees the rows as they were when the statement began: `status` is the one before this move.
    const result = await sql<{ status: TaskStatus }>`with started as (update tasks set status = 'processing', started_at = ${now}, updated_at = ${now} where id = ${row.task_id} and status = 'not_started'),
      recorded as (insert into task_attempts (${sql.join(columns.map((c) => sql.ref(c)))}) values (${sql.join(columns.map((c) => row[c]))}))
      select status from tasks where id = ${row.task_id}`.execute(db);
    return isOpenStatus(result.rows[0]?.status);
  }
  const write = async (tx: Executor): Promise<boolean> => {
    const task = await tx.selectFrom('tasks').select('status').where('id', '=', row.task_id).executeTakeFirst();
    await tx.updateTable('tasks').set({ status: 'processing', started_at: now, updated_at: now }).where('id', '=', row.task_id).where('status', '=', 'not_started').execute();
    await insertAttempt(tx, row);
    return isOpenStatus(task?.status);
  };
  if (db.isTransaction) return write(db);
  return db.transaction().execute(write);
}

/** A later attempt of a started task, recorded before anything is sent; whether the task was still open then. */
export async function insertNextAttempt(db: Executor, row: AttemptRow): Promise<boolean> {
  if (isPostgres(db)) {
    const columns = Object.keys(row) as Array<keyof AttemptRow>;
    const result = await sql<{ status: TaskStatus }>`with recorded as (insert into task_attempts (${sql.join(columns.map((c) => sql.ref(c)))}) values (${sql.join(columns.map((c) => row[c]))}))
      select status from tasks where id = ${row.task_id}`.execute(db);
    return isOpenStatus(result.rows[0]?.status);
  }
  await insertAttempt(db, row);
  const task = await db.selectFrom('tasks').select('status').where('id', '=', row.task_id).executeTakeFirst();
  return isOpenStatus(task?.status);
}

function isOpenStatus(status: TaskStatus | undefined): boolean {
  return status === 'not_started' || status === 'processing';
}

/**
 * The move to `finished` (compare-and-set from a non-terminal status) and, only when it wins, the
 * attempt's success, the file records and the end of the job. Returns whether it won. PostgreSQL: one
 * statement (every part conditional on the task's update); SQLite: the same statements one by one.
 * Run it in the transaction that also runs the terminal hook.
 */
export async function finishTask(tx: Executor, s: TaskSuccess): Promise<boolean> {
  const from = allowedFrom('finished');
  const attemptFrom: AttemptState[] = ['submitting', 'accepted', 'unknown'];
  const now = s.changes.updated_at;
  if (!isPostgres(tx)) {
    if (!(await transitionTask(tx, s.taskId, 'finished', s.changes))) return false;
    await updateAttempt(tx, s.attemptId, attemptFrom, { state: 'succeeded', upstream_id: s.upstreamId, ended_at: now, error_message: null, upstream_cost_micro: s.upstreamCostMicro });
    await insertStoredFiles(tx, s.files);
    if (s.job) await completeJobIn(tx, s.job.owner, s.job.id);
    return true;
  }
  const c = s.changes;
  const files = s.files.length
    ? sql`, f as (insert into stored_files (blob_key, task_id, position, file_type, content_type, bytes, created_at, expires_at, deleted_at)
        select v.* from (values ${sql.join(
          s.files.map(
            (f) =>
              sql`(${f.blob_key}::text, ${f.task_id}::text, ${f.position}::integer, ${f.file_type}::text, ${f.content_type}::text, ${f.bytes}::bigint, ${f.created_at}::bigint, ${f.expires_at}::bigint, ${f.deleted_at}::bigint)`,
          ),
        )}) v where exists (select 1 from t) on conflict (blob_key) do nothing)`
    : sql``;
  const job = s.job ? sql`, j as (delete from jobs where id = ${s.job.id} and lease_owner = ${s.job.owner} and exists (select 1 from t))` : sql``;
  const result = await sql<{ won: number }>`with t as (
      update tasks set status = 'finished', files_json = ${c.files_json}, output_json = ${c.output_json}, finished_at = ${c.finished_at},
        updated_at = ${c.updated_at}, expires_at = ${c.expires_at}
      where id = ${s.taskId} and status in (${sql.join(from)}) returning id),
    a as (update task_attempts set state = 'succeeded', upstream_id = ${s.upstreamId}, ended_at = ${now}, error_message = null, upstream_cost_micro = ${s.upstreamCostMicro}
      where id = ${s.attemptId} and state in (${sql.join(attemptFrom)}) and exists (select 1 from t))${files}${job}
    select count(*)::integer as won from t`.execute(tx);
  return (result.rows[0]?.won ?? 0) > 0;
}

/** Compare-and-set on an attempt's state; false when someone else moved it first. */
export async function updateAttempt(
  db: Executor,
  id: string,
  fromStates: AttemptState[],
  changes: Partial<Omit<AttemptRow, 'id' | 'task_id'>>,
): Promise<boolean> {
  const result = await db.updateTable('task_attempts').set(changes).where('id', '=', id).where('state', 'in', fromStates).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function recordLateOutcome(db: Executor, id: string, outcome: string, at: number): Promise<void> {
  await db.updateTable('task_attempts').set({ late_outcome: outcome, late_at: at }).where('id', '=', id).where('late_outcome', 'is', null).execute();
}

export async function incrementPolls(db: Executor, id: string): Promise<void> {
  await db
    .updateTable('task_attempts')
    .set((eb) => ({ polls: eb('polls', '+', 1) }))
    .where('id', '=', id)
    .execute();
}

export async function insertStoredFiles(db: Executor, rows: StoredFileRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db
    .insertInto('stored_files')
    .values(rows)
    .onConflict((oc) => oc.column('blob_key').doNothing())
    .execute();
}

export async function findExpiredFiles(db: Executor, now: number, limit: number): Promise<StoredFileRow[]> {
  return db.selectFrom('stored_files').selectAll().where('deleted_at', 'is', null).where('expires_at', '<=', now).orderBy('expires_at').limit(limit).execute();
}

export async function markFileDeleted(db: Executor, key: string, now: number): Promise<void> {
  await db.updateTable('stored_files').set({ deleted_at: now }).where('blob_key', '=', key).where('deleted_at', 'is', null).execute();
}

export async function findTasksToExpire(db: Executor, now: number, limit: number): Promise<Array<Pick<TaskRow, 'id' | 'user_id'>>> {
  return db.selectFrom('tasks').select(['id', 'user_id']).where('status', '=', 'finished').where('expires_at', '<=', now).limit(limit).execute();
}

export async function findParentTasks(db: Executor, userId: string, ids: string[]): Promise<TaskRow[]> {
  if (ids.length === 0) return [];
  return db.selectFrom('tasks').selectAll().where('user_id', '=', userId).where('id', 'in', ids).execute();
}
