import { findTasksWithLatestAttempt, type AttemptRow, type TaskRow } from '../../adapters/db/repositories/tasks.repository.ts';
import type { Executor } from '../../adapters/db/schema.ts';

export interface TaskStep {
  task: TaskRow;
  /** The latest attempt: the only one a step acts on. */
  attempt: AttemptRow | undefined;
}

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
  readonly #db: Executor;
  #pending = new Map<string, Pending[]>();
  #scheduled = false;

  constructor(db: Executor) {
    this.#db = db;
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
        const found = await findTasksWithLatestAttempt(this.#db, chunk);
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
