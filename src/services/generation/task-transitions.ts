import type { TaskStatus } from '../../domain/tasks/task-status.ts';
import type { LedgerBook } from '../../ports/ledger.port.ts';
import type { StoreTransaction } from '../../ports/store-transaction.port.ts';
import type { TaskRow, TaskStore } from '../../ports/task-store.port.ts';
import type { UnitOfWork } from '../../ports/unit-of-work.port.ts';

/** The error message of a task a client cancelled, the note of its refund, and the mark on an attempt whose job we asked the upstream to stop. */
export const CANCELLED_BY_CLIENT = 'cancelled by the client';
export const CANCEL_REQUESTED = 'cancel requested by the client';

/** Called inside the transaction that moved a task into a terminal status (webhooks, events). */
export type TerminalHook = (tx: StoreTransaction, task: TaskRow) => Promise<void>;

/** What a terminal move writes through: the task store, its transactions and (for a refund) the book. */
export interface TaskMovePorts {
  tasks: TaskStore;
  uow: UnitOfWork;
  ledger: LedgerBook;
}

/**
 * Moves a task to `failed` and refunds its charge in full, in one transaction. The refund is written
 * only by the transaction that wins the compare-and-set, and its ledger key (generation_refund, task id)
 * is unique, so it happens at most once whatever is retried or raced.
 */
export async function failTask(
  ports: TaskMovePorts,
  task: TaskRow,
  message: string,
  now: number,
  onTerminal: TerminalHook,
  /** More work for the same transaction when it wins (the worker ending the task's job). */
  alsoInTx?: (tx: StoreTransaction) => Promise<void>,
  /** The refund's ledger note: why the task failed, in a word a statement can show. */
  refundNote = 'generation failed',
): Promise<boolean> {
  const { tasks, ledger } = ports;
  return ports.uow.transaction(async (tx) => {
    const changes = { error_message: message, finished_at: now, updated_at: now, refunded_micro: task.cost_micro };
    // The account before the task, the order every money transaction keeps (lockAccount).
    if (task.cost_micro > 0) await ledger.lockAccount(tx, task.user_id);
    if (!(await tasks.moveTask(tx, task.id, 'failed', changes))) return false;
    if (task.cost_micro > 0) {
      await ledger.post(tx, { userId: task.user_id, kind: 'generation_refund', reference: task.id, amountMicro: task.cost_micro, note: refundNote, apiKeyId: task.api_key_id, keySpendAt: task.created_at }, now);
    }
    await onTerminal(tx, { ...task, ...changes, status: 'failed' });
    await alsoInTx?.(tx);
    return true;
  });
}

/** The move to `expired` when the retention of a finished task's files has ended. */
export async function expireTask(ports: Pick<TaskMovePorts, 'tasks' | 'uow'>, task: TaskRow, now: number, onTerminal: TerminalHook): Promise<boolean> {
  return ports.uow.transaction(async (tx) => {
    if (!(await ports.tasks.moveTask(tx, task.id, 'expired', { updated_at: now }))) return false;
    await onTerminal(tx, { ...task, status: 'expired' as TaskStatus, updated_at: now });
    return true;
  });
}
