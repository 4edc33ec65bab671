/** Rows of the work-queue tables, as the store ports hand them out. */
export interface JobsRow {
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
  /** Whom the job serves, for fair claims (a webhook delivery's user); null: no lane. */
  lane_tenant: string | null;
  /** What the job calls (a webhook destination's origin); null: no lane. */
  lane_target: string | null;
}

/** A lane target that keeps failing: no job of it is claimed before `paused_until`, then one at a time. */
export interface JobTargetsRow {
  queue: string;
  target: string;
  /** Consecutive failures reported since the last success. */
  failures: number;
  /** The first failure of the streak. */
  failing_since: number;
  /** Null until the streak says the target keeps failing. */
  paused_until: number | null;
  updated_at: number;
}
