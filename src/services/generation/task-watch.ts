import { isTerminal } from '../../domain/tasks/task-status.ts';
import type { EventBus } from '../../ports/event-bus.port.ts';
import type { TaskStatusRow } from '../../ports/task-store.port.ts';

/** `task.changed.<taskId>`: a step of the task (or a cancel) committed a change; readers read the store. */
export const TASK_CHANGED_TOPIC = 'task.changed.';

/**
 * Who waits on a task's changes hears of them here (issue 34, items 2 and 3): the worker announces
 * every step of a task after it committed, and the cancel its move into `failed`; in scale-out mode
 * that step ran in another process, so the message comes over the event bus (Redis). A message is
 * only a nudge: the reader reads the store, and a lost one costs at most the reader's own fallback
 * (the wait's final read, the stream's periodic check).
 */
export class TaskWatch {
  readonly #bus: EventBus;

  constructor(bus: EventBus) {
    this.#bus = bus;
  }

  /** After the change committed. Never throws. */
  async announce(taskId: string): Promise<void> {
    await this.#bus.publish(TASK_CHANGED_TOPIC + taskId, '1').catch(() => {});
  }

  /** Calls `onChange` at every announced change of the task until the returned function is called. */
  watch(taskId: string, onChange: () => void): Promise<() => Promise<void>> {
    return this.#bus.subscribe(TASK_CHANGED_TOPIC + taskId, () => onChange());
  }

  /** Whether messages may be lost now (the reader should then check the store on its own). */
  reliable(): boolean {
    return this.#bus.reliable();
  }

  /**
   * The task's row once it has ended, or undefined when `ms` passed first or `signal` aborted (the
   * client left). It holds no event-loop time while waiting: a bus subscription and one timer, no
   * polling; the store is read once when the subscription is live (the task may have ended before),
   * at each announced change, and once at the deadline (in case a message was lost). The
   * subscription and the timer are released whichever comes first.
   */
  waitForEnd(taskId: string, read: () => Promise<TaskStatusRow | undefined>, ms: number, signal: AbortSignal): Promise<TaskStatusRow | undefined> {
    return new Promise((resolve) => {
      let done = false;
      let unsubscribe: (() => Promise<void>) | undefined;
      const finish = (row: TaskStatusRow | undefined): void => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        void unsubscribe?.().catch(() => {});
        resolve(row);
      };
      const check = async (): Promise<void> => {
        if (done) return;
        const row = await read().catch(() => undefined);
        if (row && isTerminal(row.status)) finish(row);
      };
      const onAbort = (): void => finish(undefined);
      const timer = setTimeout(() => void check().finally(() => finish(undefined)), ms);
      if (signal.aborted) return finish(undefined);
      signal.addEventListener('abort', onAbort, { once: true });
      this.watch(taskId, () => void check()).then(
        (stop) => {
          unsubscribe = stop;
          if (done) void stop().catch(() => {});
          else void check();
        },
        () => void check(),
      );
    });
  }
}
