import type { Executor } from '../schema.ts';

/**
 * Removes a job its owner has finished, in `tx` (the pool's own statement, or a handler's final
 * transaction through its JobContext), guarded by the lease; false when the lease was lost. The work
 * queue and a task's batched steps both end jobs this way, so the statement lives with the store.
 */
export async function completeJobIn(tx: Executor, owner: string, jobId: string): Promise<boolean> {
  const result = await tx.deleteFrom('jobs').where('id', '=', jobId).where('lease_owner', '=', owner).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
