import type { StoreTransaction } from '../../ports/store-transaction.port.ts';
import type { TaskStore, TaskWithAttempt } from '../../ports/task-store.port.ts';

/** A task and its latest attempt: the only one a step acts on. */
export type TaskStep = TaskWithAttempt;

interface Pending {
  resolve: (step: TaskStep | undefined) => void;
  reject: (error: unknown) => void;
}

const MAX_BATCH = 500;

/**
 * Reads the task and latest attempt each step starts from. The worker starts every job of a claim in
 * the same turn of the event loop (and held polls fall due together), so the reads asked for in one
 * turn are made together: two statements for the batch instead of two per task. Each step still sees
 * the rows as committed when it starts, which is all a step relies on (its writes are compare-and-set).
 */
export class TaskStepReader {
  readonly #tasks: TaskStore;
  readonly #tx: StoreTransaction;
  #pending = new Map<string, Pending[]>();
  #scheduled = false;

  /** `tx`: the store outside a transaction (each batch of reads is its own statements). */
  constructor(tasks: TaskStore, tx: StoreTransaction) {
    this.#tasks = tasks;
    this.#tx = tx;
  }

  read(taskId: string): Promise<TaskStep | undefined> {
    return new Promise((resolve, reject) => {
      const waiting = this.#pending.get(taskId);
      if (waiting) waiting.push({ resolve, reject });
      else this.#pending.set(taskId, [{ resolve, reject }]);
      if (!this.#scheduled) {
        this.#scheduled = true;
        // After the I/O callbacks of this turn, so that steps started by them share the batch.
        setImmediate(() => void this.#flush());
      }
    });
  }

  async #flush(): Promise<void> {
    this.#scheduled = false;
    const all = this.#pending;
    this.#pending = new Map();
    const ids = [...all.keys()];
    for (let i = 0; i < ids.length; i += MAX_BATCH) {
      const chunk = ids.slice(i, i + MAX_BATCH);
      try {
        const found = await this.#tasks.findTasksWithLatestAttempt(this.#tx, chunk);
        for (const id of chunk) for (const p of all.get(id) ?? []) p.resolve(copyOf(found.get(id)));
      } catch (error) {
        for (const id of chunk) for (const p of all.get(id) ?? []) p.reject(error);
      }
    }
  }
}

/** Each reader of a row gets its own copy (a step updates its task object as it goes). */
function copyOf(step: TaskStep | undefined): TaskStep | undefined {
  return step && { task: { ...step.task }, attempt: step.attempt && { ...step.attempt } };
}
