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
  /** Consecutive unexpected failures of its handler (the poison-job rule); 0 after a normal end of a claim. */
  failures: number;
  /** How many of those, counted back from the last, failed the same way. */
  repeats: number;
  /** The last failure's fingerprint (the error's kind and message, digits folded). */
  last_failure: string | null;
  /** The enqueuing request's trace context (W3C traceparent), or null (tracing off). */
  trace_context: string | null;
}

export interface WorkQueueTables {
  jobs: JobsTable;
}
