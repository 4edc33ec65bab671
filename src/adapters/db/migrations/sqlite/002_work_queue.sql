-- The work queue (decision 4): a job is a row; workers claim due rows with a lease.
CREATE TABLE jobs (
  id TEXT PRIMARY KEY,
  kind TEXT NOT NULL,
  ref_id TEXT NOT NULL,
  queue TEXT NOT NULL,
  run_at INTEGER NOT NULL,
  lease_owner TEXT,
  lease_until INTEGER,
  attempts INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL,
  UNIQUE (kind, ref_id)
) STRICT;
CREATE INDEX jobs_queue_due_idx ON jobs (queue, run_at);
