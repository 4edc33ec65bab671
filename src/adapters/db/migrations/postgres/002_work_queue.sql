-- The work queue (decision 4): a job is a row; workers claim due rows with a lease.
CREATE TABLE jobs (
  id text PRIMARY KEY,
  kind text NOT NULL,
  ref_id text NOT NULL,
  queue text NOT NULL,
  run_at bigint NOT NULL,
  lease_owner text,
  lease_until bigint,
  attempts integer NOT NULL DEFAULT 0,
  created_at bigint NOT NULL,
  UNIQUE (kind, ref_id)
);
CREATE INDEX jobs_queue_due_idx ON jobs (queue, run_at);
