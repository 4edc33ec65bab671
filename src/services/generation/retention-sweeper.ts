import type { Logger } from 'pino';
import type { BlobStore } from '../../ports/blob-store.port.ts';
import type { TaskStore } from '../../ports/task-store.port.ts';
import type { UnitOfWork } from '../../ports/unit-of-work.port.ts';
import type { JobOutcome } from '../../ports/work-queue.port.ts';
import { expireTask, type TerminalHook } from './task-transitions.ts';

const BATCH = 500;

export interface SweeperDeps {
  tasks: TaskStore;
  uow: UnitOfWork;
  blobs: BlobStore;
  onTerminal: TerminalHook;
  logger: Logger;
  intervalMs: number;
  now?: () => number;
}

/**
 * Ends the 3-day retention (decision 8): deletes the files whose time is up, then moves their
 * finished tasks to `expired` (a compare-and-set, with its webhook). Runs as a recurring job (`sweep`
 * in the job catalog), so one worker at a time does it and a crash only delays it.
 */
export function createRetentionSweeper(deps: SweeperDeps) {
  const now = deps.now ?? Date.now;
  const { tasks, uow } = deps;
  return async (): Promise<JobOutcome> => {
    let deleted = 0;
    for (;;) {
      const files = await tasks.findExpiredFiles(uow.direct, now(), BATCH);
      for (const file of files) {
        await deps.blobs.delete(file.blob_key);
        await tasks.markFileDeleted(uow.direct, file.blob_key, now());
        deleted++;
      }
      if (files.length < BATCH) break;
    }
    let expired = 0;
    for (;;) {
      const due = await tasks.findTasksToExpire(uow.direct, now(), BATCH);
      for (const { id } of due) {
        const task = await tasks.findTask(uow.direct, id);
        if (task && (await expireTask(deps, task, now(), deps.onTerminal))) expired++;
      }
      if (due.length < BATCH) break;
    }
    if (deleted || expired) deps.logger.info({ deleted, expired }, 'retention sweep');
    // The queue runs on the system clock; `now` (the gateway's clock, which tests move) decides what is due.
    return { kind: 'again', runAt: Date.now() + deps.intervalMs };
  };
}
