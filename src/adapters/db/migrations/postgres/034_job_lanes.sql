-- Fair claims (issue 29, item 9): a job may name whom it serves (lane_tenant: the user of a webhook
-- delivery) and what it calls (lane_target: the destination's origin). A claim of a queue with lane
-- caps takes at most so many jobs in flight per tenant and per target, round-robin over tenants, so
-- one tenant's dead receivers cannot hold every slot. Null: the job is in no lane (other queues, and
-- deliveries enqueued before this migration).
ALTER TABLE jobs ADD COLUMN lane_tenant text;
ALTER TABLE jobs ADD COLUMN lane_target text;
-- The claim counts the jobs in flight per lane: leased rows only.
CREATE INDEX jobs_queue_leased_idx ON jobs (queue, lease_until) WHERE lease_until IS NOT NULL;
-- A target that keeps failing (the breaker of the queue's lanes): consecutive failures, when the
-- streak began and, once it says the target keeps failing, the time before which no job of that
-- target is claimed. After that time one job at a time is claimed (a probe) until one succeeds,
-- which removes the row.
CREATE TABLE job_targets (
  queue text NOT NULL,
  target text NOT NULL,
  failures integer NOT NULL,
  failing_since bigint NOT NULL,
  paused_until bigint,
  updated_at bigint NOT NULL,
  PRIMARY KEY (queue, target)
);
