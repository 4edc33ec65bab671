/**
 * The give-up hook of `agent_run` jobs (the poison-job rule, src/domain/jobs/job-catalog.ts): a run whose
 * steps keep failing unexpectedly, the same way twice (a finalization that cannot end, state the
 * engine cannot read), is failed with a clear error instead of being retried for ever, and its unspent
 * budget is given back:
 * - every text call still open is closed the way an interrupted one is (reconcile.ts): settled at
 *   what its record says was charged, otherwise its hold released, each exactly once;
 * - then the run moves to `failed` by the lifecycle's compare-and-set (one event; a run that ended
 *   meanwhile is left as it is), which also frees the conversation for its next queued run;
 * - a generation still running is not touched: its task ends on its own (refunded if it fails) and
 *   schedules the run's job again, which settles the operation as for any run that ended.
 * Nothing in the error tells the user more than that the gateway failed: the cause is in the log.
 */
import { isTerminalRun } from '../../../domain/agent/run-status.ts';
import type { GiveUpHook } from '../../../ports/work-queue.port.ts';
import { endRun } from '../runs/run-lifecycle.ts';
import type { EngineDeps } from './engine-deps.ts';
import { closeInterruptedCall } from './reconcile.ts';
import { loadRunState, openOperations } from './run-state.ts';

export const RUN_GAVE_UP_CODE = 'internal_error';

export function createRunGiveUp(deps: EngineDeps): GiveUpHook {
  return async (job, failure) => {
    const run = await deps.store.findRun(deps.uow.direct, job.refId);
    if (!run) return { kind: 'done' };
    // The open calls first: whoever sees the run failed sees its budget released. Nothing can commit
    // anew meanwhile: only this job steps the run, and its lease is ours.
    const state = await loadRunState(deps, run);
    for (const op of openOperations(state)) if (op.kind === 'chat') await closeInterruptedCall(deps, state, op);
    if (isTerminalRun(run.status)) return { kind: 'done' };
    const how = failure.repeats >= 2 ? `the same way ${failure.repeats} times in a row` : `${failure.failures} times in a row`;
    await deps.writer.run(async (tx, fx) => {
      const current = await deps.store.findRun(tx, run.id);
      if (!current || isTerminalRun(current.status)) return;
      await endRun(tx, fx, deps.writer.queue, current, {
        to: 'failed',
        error: { code: RUN_GAVE_UP_CODE, message: `the run was stopped: the gateway failed on it ${how}; its unspent budget was released and nothing more will be charged` },
      });
    });
    return { kind: 'done' };
  };
}
