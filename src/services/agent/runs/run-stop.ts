/**
 * Stopping a run (rule 7, AGENT.md): a run that waits for the user, or is queued, is cancelled at
 * once; a run that is working moves to `stopping`, which prevents every further dispatch (dispatches
 * commit only while the run is `running`) and interrupts its text call. A provider operation already
 * accepted is not cancelled: it may finish and is charged; the run is cancelled once nothing of it is
 * open any more.
 */
import { stopTarget } from '../../../domain/agent/run-status.ts';
import { AppError } from '../../../domain/errors.ts';
import type { RunRow } from '../../../ports/agent-store.port.ts';
import type { EventBus } from '../../../ports/event-bus.port.ts';
import type { StoreTransaction } from '../../../ports/store-transaction.port.ts';
import type { WorkQueue } from '../../../ports/work-queue.port.ts';
import type { TxEffects } from '../events/agent-writer.ts';
import { endRun, moveRun } from './run-lifecycle.ts';
import { scheduleRun } from './run-jobs.ts';

/** Topic on which a stop reaches the process that runs the run's text call. */
export const RUN_STOP_TOPIC = 'agent.run.stop';

/** Stops the run in the caller's transaction; returns the run as it is afterwards. */
export async function stopRun(tx: StoreTransaction, fx: TxEffects, queue: WorkQueue, bus: EventBus, runId: string): Promise<RunRow> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const run = await fx.store.findRun(tx, runId);
    if (!run) throw new AppError('not_found', 'run not found');
    const open = (await fx.store.listRunOperations(tx, run.id)).some((o) => o.state === 'committed');
    const target = stopTarget(run.status, open);
    if (target === undefined) return run;
    if (target === 'cancelled') {
      if (await endRun(tx, fx, queue, run, { to: 'cancelled', from: [run.status], version: run.version })) return (await fx.store.findRun(tx, runId)) ?? run;
      continue;
    }
    const version = await moveRun(tx, fx, run, { to: 'stopping', waitReason: 'stop_requested', changes: { stop_requested_at: fx.now }, from: [run.status], version: run.version });
    if (version === undefined) continue;
    await fx.store.cancelPendingActions(tx, run.id, fx.now);
    await fx.store.cancelWaitingSteps(tx, run.id, fx.now);
    await scheduleRun(tx, queue, fx, run.id);
    fx.after(() => bus.publish(RUN_STOP_TOPIC, run.id));
    return (await fx.store.findRun(tx, runId)) ?? run;
  }
  throw new AppError('conflict', 'the run kept changing while it was being stopped; try again', { retryAfter: 1 });
}
