/** The work-queue tables as Kysely sees them: the rows of ports/store-rows/work-queue.rows.ts, with the columns the database fills. */
import type { JobTargetsRow, JobsRow } from '../../../ports/store-rows/work-queue.rows.ts';

export type JobsTable = JobsRow;
export type JobTargetsTable = JobTargetsRow;

export interface WorkQueueTables {
  jobs: JobsTable;
  job_targets: JobTargetsTable;
}
