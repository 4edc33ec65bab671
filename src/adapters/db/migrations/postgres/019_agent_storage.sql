-- The agent, part 3: paid storage (SPEC rule 18 and "Storage subscription"). One subscription per
-- user, billed monthly from its anchor (the billing date); quotes are priced offers used at most
-- once; each charge is a row here and a `storage_charge` ledger entry with the same reference.
-- Files are copies the user keeps without the 3-day limit (retained generations, project assets);
-- operations are the copies in flight, polled by id.
CREATE TABLE storage_subscriptions (
  user_id text PRIMARY KEY,
  plan_id text NOT NULL,
  -- A downgrade waits for the next renewal.
  next_plan_id text,
  quota_bytes bigint NOT NULL,
  -- Bytes of available files, changed only by a guarded update that keeps it within quota_bytes.
  used_bytes bigint NOT NULL,
  anchor_at bigint NOT NULL,
  period_index bigint NOT NULL,
  period_start bigint NOT NULL,
  period_end bigint NOT NULL,
  auto_renew bigint NOT NULL,
  -- active (paid through period_end), grace (period ended unpaid; reads only), lapsed (files deleted)
  status text NOT NULL,
  grace_ends_at bigint,
  version bigint NOT NULL,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  CHECK (status IN ('active', 'grace', 'lapsed')),
  CHECK (used_bytes >= 0)
);
CREATE INDEX storage_subscriptions_due_idx ON storage_subscriptions (period_end) WHERE status = 'active';
CREATE INDEX storage_subscriptions_grace_idx ON storage_subscriptions (grace_ends_at) WHERE status = 'grace';

CREATE TABLE storage_quotes (
  id text PRIMARY KEY,
  user_id text NOT NULL,
  plan_id text NOT NULL,
  -- new, reactivate, upgrade, downgrade or unchanged
  change_kind text NOT NULL,
  amount_micro bigint NOT NULL,
  balance_after_micro bigint NOT NULL,
  period_start bigint NOT NULL,
  period_end bigint NOT NULL,
  -- The subscription's version the quote was priced on (0: none).
  quota_version bigint NOT NULL,
  created_at bigint NOT NULL,
  expires_at bigint NOT NULL,
  used_at bigint
);
CREATE INDEX storage_quotes_user_idx ON storage_quotes (user_id, created_at);

CREATE TABLE storage_charges (
  id text PRIMARY KEY,
  user_id text NOT NULL,
  plan_id text NOT NULL,
  -- subscribe, reactivate, upgrade or renewal
  charge_kind text NOT NULL,
  amount_micro bigint NOT NULL,
  period_start bigint NOT NULL,
  period_end bigint NOT NULL,
  -- The reference of its `storage_charge` ledger entry.
  reference text NOT NULL UNIQUE,
  created_at bigint NOT NULL
);
CREATE INDEX storage_charges_user_idx ON storage_charges (user_id, created_at);

CREATE TABLE storage_files (
  id text PRIMARY KEY,
  user_id text NOT NULL,
  -- The operation that made it: one file per operation, whatever is retried.
  operation_id text NOT NULL UNIQUE,
  -- retained or project_asset
  file_kind text NOT NULL,
  project_id text,
  source_type text NOT NULL,
  source_id text NOT NULL,
  output_index bigint,
  name text NOT NULL,
  mime text NOT NULL,
  size_bytes bigint NOT NULL,
  blob_key text NOT NULL,
  -- available, deleted (quota freed; the bytes go once purged_at is set)
  status text NOT NULL,
  created_at bigint NOT NULL,
  deleted_at bigint,
  purged_at bigint,
  CHECK (status IN ('available', 'deleted'))
);
CREATE INDEX storage_files_user_idx ON storage_files (user_id, status, created_at, id);
CREATE INDEX storage_files_purge_idx ON storage_files (deleted_at) WHERE status = 'deleted' AND purged_at IS NULL;

CREATE TABLE storage_operations (
  id text PRIMARY KEY,
  user_id text NOT NULL,
  storefront text NOT NULL,
  -- retain or import
  operation_type text NOT NULL,
  -- pending, completed or failed
  status text NOT NULL,
  source_type text NOT NULL,
  source_id text NOT NULL,
  output_index bigint,
  project_id text,
  asset_role text,
  -- Secret seed of the copy's blob key: a retried copy overwrites its own object.
  copy_seed text NOT NULL,
  file_id text,
  error_code text,
  error_message text,
  created_at bigint NOT NULL,
  finished_at bigint,
  CHECK (status IN ('pending', 'completed', 'failed'))
);
CREATE INDEX storage_operations_user_idx ON storage_operations (user_id, created_at);
