import type { AttemptState, TaskStatus } from '../../../domain/tasks/task-status.ts';
import { allowedFrom } from '../../../domain/tasks/task-status.ts';
import { compiledOnce } from '../compiled-once.ts';
import type { Executor } from '../schema.ts';
import type { StoredFilesTable, TaskAttemptsTable, TasksTable } from '../tables/media.tables.ts';

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

export async function findAttempt(db: Executor, id: string): Promise<AttemptRow | undefined> {
  return db.selectFrom('task_attempts').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function insertAttempt(db: Executor, row: AttemptRow): Promise<void> {
  await db.insertInto('task_attempts').values(row).execute();
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
