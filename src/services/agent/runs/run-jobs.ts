import type { AgentStore } from '../../../ports/agent-store.port.ts';
import type { StoreTransaction } from '../../../ports/store-transaction.port.ts';
import type { WorkQueue } from '../../../ports/work-queue.port.ts';
import { newJob } from '../../../domain/jobs/job-catalog.ts';
import type { TxEffects } from '../events/agent-writer.ts';

/**
 * Runs are stepped by the durable worker machinery: one `agent_run` job per run (src/domain/jobs/job-catalog.ts).
 * Makes the run's job due at `runAt` (an existing one is moved earlier), in the caller's transaction.
 * The run's wake counter moves too: a worker stepping the run right now (its job leased, so the
 * enqueue changes nothing) sees it before it sets the job aside, and steps the run again.
 */
export async function scheduleRun(tx: StoreTransaction, queue: WorkQueue, fx: TxEffects, runId: string, runAt: number = fx.now): Promise<void> {
  await fx.store.wakeRun(tx, runId);
  const job = newJob('agent_run', { runId }, runAt);
  await queue.enqueue(tx, job);
  fx.wake(job.queue);
}

/**
 * A task dispatched by a run reached a terminal status: in that transaction, the run is marked changed
 * and its job made due, so the run settles the task's operation and goes on.
 */
export async function wakeRunForTask(store: AgentStore, tx: StoreTransaction, queue: WorkQueue, runId: string, now: number): Promise<void> {
  await store.wakeRun(tx, runId);
  await queue.enqueue(tx, newJob('agent_run', { runId }, now));
}
