export interface JobsTable {
  id: string;
  /** What to run: `task`, `webhook`, `agent_step`, … */
  kind: string;
  /** The row the job works on (a task id, a delivery id); one job per (kind, ref_id). */
  ref_id: string;
  /** Concurrency group: the provider a task step talks to, or `webhooks`. */
  queue: string;
  run_at: number;
  lease_owner: string | null;
  lease_until: number | null;
  /** How many times the job was claimed. */
  attempts: number;
  created_at: number;
}

export interface WorkQueueTables {
  jobs: JobsTable;
}
