/**
 * The media tasks' store as the generation services see it (docs/architecture.md, "The store behind
 * ports"): tasks and their compare-and-set moves, attempts, the stored files of a result and their
 * retention. Every method takes the transaction first: `UnitOfWork.direct` for a statement alone, or
 * the `tx` of a unit of work whose writes commit together (a move into `failed` and its refund).
 *
 * A task's status only moves by compare-and-set (src/domain/tasks/task-status.ts): a move from a
 * status that does not allow it, or that another writer has left, changes nothing and says so.
 */
import type { AttemptState, TaskStatus } from '../domain/tasks/task-status.ts';
import type { StoredFilesRow, TaskAttemptsRow, TasksRow } from './store-rows/media.rows.ts';
import type { StoreTransaction } from './store-transaction.port.ts';

export type TaskRow = TasksRow;
export type AttemptRow = TaskAttemptsRow;
export type StoredFileRow = StoredFilesRow;

/** The columns GET /task/status shows (the row without the request, which can be large). */
export type TaskStatusRow = Pick<TaskRow, 'id' | 'status' | 'files_json' | 'output_json' | 'created_at' | 'error_message' | 'expires_at'>;

/** A task and its latest attempt: what one step of the runner starts from. */
export interface TaskWithAttempt {
  task: TaskRow;
  attempt: AttemptRow | undefined;
}

/** The move into `finished`, with what only the winner of that move writes. */
export interface TaskSuccess {
  taskId: string;
  changes: Pick<TaskRow, 'files_json' | 'output_json' | 'finished_at' | 'updated_at' | 'expires_at'>;
  attemptId: string;
  upstreamId: string | null;
  /** What the attempt's upstream charged us for the result (route-cost.ts); null when its entry has no cost for the task's tier. */
  upstreamCostMicro: number | null;
  files: StoredFileRow[];
  /** The worker's job for the task, removed under its lease when the task finishes here. */
  job: { id: string; owner: string } | undefined;
}

export interface TaskStore {
  /** Fails with an error `isDuplicateTask` recognises when the user already has a task with its Idempotency-Key. */
  insertTask(tx: StoreTransaction, row: TaskRow): Promise<void>;
  /** Whether an error of a create's transaction is the store refusing a second task with one Idempotency-Key (a unique violation). */
  isDuplicateTask(error: unknown): boolean;
  findTask(tx: StoreTransaction, id: string): Promise<TaskRow | undefined>;
  /** A task as its owner sees it: another user's task does not exist. */
  findUserTask(tx: StoreTransaction, userId: string, id: string): Promise<TaskRow | undefined>;
  /** The hottest read of all (clients poll it): only the columns of the status response. */
  findUserTaskStatus(tx: StoreTransaction, userId: string, id: string): Promise<TaskStatusRow | undefined>;
  findTaskByIdempotencyKey(tx: StoreTransaction, userId: string, key: string): Promise<TaskRow | undefined>;
  /** The user's tasks among `ids` (the parents a request refers to); others' are absent. */
  findParentTasks(tx: StoreTransaction, userId: string, ids: string[]): Promise<TaskRow[]>;
  /** Tasks and their latest attempts, many at once; missing ids are absent from the map. */
  findTasksWithLatestAttempt(tx: StoreTransaction, ids: string[]): Promise<Map<string, TaskWithAttempt>>;
  /**
   * Compare-and-set of the status: moves the task to `to` only from a status that allows it, narrowed
   * to `from` when given. True when this call made the change; otherwise nothing changed.
   */
  moveTask(tx: StoreTransaction, id: string, to: TaskStatus, changes: Partial<Omit<TaskRow, 'id' | 'status'>>, from?: TaskStatus[]): Promise<boolean>;
  /**
   * The move to `finished` and, only when it wins, the attempt's success, the file records and the end
   * of the job, at once. Run it in the transaction that also runs the terminal hook.
   */
  finishTask(tx: StoreTransaction, success: TaskSuccess): Promise<boolean>;
  /** A task's attempts in the order they were made. */
  listAttempts(tx: StoreTransaction, taskId: string): Promise<AttemptRow[]>;
  findAttempt(tx: StoreTransaction, id: string): Promise<AttemptRow | undefined>;
  /**
   * Records an attempt before anything is sent. False when the task had already ended (a client
   * cancelled it): the attempt is recorded all the same, and nothing may be sent for it.
   */
  recordAttempt(tx: StoreTransaction, row: AttemptRow): Promise<boolean>;
  /** The first attempt of a task not started yet: records it and moves the task to `processing`, atomically; false as for `recordAttempt`. */
  recordFirstAttempt(tx: StoreTransaction, row: AttemptRow, now: number): Promise<boolean>;
  /** Compare-and-set on an attempt's state; false when someone else moved it first (nothing changed). */
  moveAttempt(tx: StoreTransaction, id: string, from: AttemptState[], changes: Partial<Omit<AttemptRow, 'id' | 'task_id'>>): Promise<boolean>;
  /** An outcome reported after we left the attempt: recorded once, then ignored. */
  recordLateOutcome(tx: StoreTransaction, id: string, outcome: string, at: number): Promise<void>;
  countPoll(tx: StoreTransaction, attemptId: string): Promise<void>;
  /** Stored files whose retention has ended and that are not deleted yet, oldest first. */
  findExpiredFiles(tx: StoreTransaction, now: number, limit: number): Promise<StoredFileRow[]>;
  markFileDeleted(tx: StoreTransaction, blobKey: string, now: number): Promise<void>;
  /** Finished tasks whose files' retention has ended. */
  findTasksToExpire(tx: StoreTransaction, now: number, limit: number): Promise<Array<Pick<TaskRow, 'id' | 'user_id'>>>;
}
