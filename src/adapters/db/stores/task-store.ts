import type { Kysely } from 'kysely';
import type { LedgerBook } from '../../../ports/ledger.port.ts';
import type { TaskStore } from '../../../ports/task-store.port.ts';
import type { UnitOfWork } from '../../../ports/unit-of-work.port.ts';
import { isUniqueViolation } from '../db-errors.ts';
import { kyselyLedgerBook } from '../ledger/ledger-book.ts';
import {
  findAttempt,
  findExpiredFiles,
  findParentTasks,
  findTask,
  findTaskByIdempotencyKey,
  findTasksToExpire,
  findTasksWithLatestAttempt,
  findUserTask,
  findUserTaskStatus,
  finishTask,
  incrementPolls,
  insertFirstAttempt,
  insertNextAttempt,
  insertTask,
  listAttempts,
  markFileDeleted,
  recordLateOutcome,
  transitionTask,
  updateAttempt,
} from '../repositories/tasks.repository.ts';
import { executorOf, type Schema } from '../schema.ts';
import { kyselyUnitOfWork } from './kysely-unit-of-work.ts';

/**
 * The media tasks' store over Kysely, for SQLite and PostgreSQL alike: the repository's statements
 * (compiled once where they are hot), reached through the port's transaction.
 */
export const kyselyTaskStore: TaskStore = {
  insertTask: (tx, row) => insertTask(executorOf(tx), row),
  isDuplicateTask: isUniqueViolation,
  findTask: (tx, id) => findTask(executorOf(tx), id),
  findUserTask: (tx, userId, id) => findUserTask(executorOf(tx), userId, id),
  findUserTaskStatus: (tx, userId, id) => findUserTaskStatus(executorOf(tx), userId, id),
  findTaskByIdempotencyKey: (tx, userId, key) => findTaskByIdempotencyKey(executorOf(tx), userId, key),
  findParentTasks: (tx, userId, ids) => findParentTasks(executorOf(tx), userId, ids),
  findTasksWithLatestAttempt: (tx, ids) => findTasksWithLatestAttempt(executorOf(tx), ids),
  moveTask: (tx, id, to, changes, from) => transitionTask(executorOf(tx), id, to, changes, from),
  finishTask: (tx, success) => finishTask(executorOf(tx), success),
  listAttempts: (tx, taskId) => listAttempts(executorOf(tx), taskId),
  findAttempt: (tx, id) => findAttempt(executorOf(tx), id),
  recordAttempt: (tx, row) => insertNextAttempt(executorOf(tx), row),
  recordFirstAttempt: (tx, row, now) => insertFirstAttempt(executorOf(tx), row, now),
  moveAttempt: (tx, id, from, changes) => updateAttempt(executorOf(tx), id, from, changes),
  recordLateOutcome: (tx, id, outcome, at) => recordLateOutcome(executorOf(tx), id, outcome, at),
  countPoll: (tx, attemptId) => incrementPolls(executorOf(tx), attemptId),
  findExpiredFiles: (tx, now, limit) => findExpiredFiles(executorOf(tx), now, limit),
  markFileDeleted: (tx, blobKey, now) => markFileDeleted(executorOf(tx), blobKey, now),
  findTasksToExpire: (tx, now, limit) => findTasksToExpire(executorOf(tx), now, limit),
};

/**
 * The ports a task's moves write through (task-transitions.ts, TaskMovePorts), over one Kysely
 * handle: the task store, its unit of work and the ledger book that writes a failure's refund.
 */
export function kyselyTaskPorts(db: Kysely<Schema>): { tasks: TaskStore; uow: UnitOfWork; ledger: LedgerBook } {
  return { tasks: kyselyTaskStore, uow: kyselyUnitOfWork(db), ledger: kyselyLedgerBook };
}
