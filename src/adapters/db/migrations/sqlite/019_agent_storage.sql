-- The agent, part 3: paid storage (SPEC rule 18 and "Storage subscription"). One subscription per
-- user, billed monthly from its anchor (the billing date); quotes are priced offers used at most
-- once; each charge is a row here and a `storage_charge` ledger entry with the same reference.
-- Files are copies the user keeps without the 3-day limit (retained generations, project assets);
-- operations are the copies in flight, polled by id.
CREATE TABLE storage_subscriptions (
  user_id TEXT PRIMARY KEY,
  plan_id TEXT NOT NULL,
  -- A downgrade waits for the next renewal.
  next_plan_id TEXT,
  quota_bytes INTEGER NOT NULL,
  -- Bytes of available files, changed only by a guarded update that keeps it within quota_bytes.
  used_bytes INTEGER NOT NULL,
  anchor_at INTEGER NOT NULL,
  period_index INTEGER NOT NULL,
  period_start INTEGER NOT NULL,
  period_end INTEGER NOT NULL,
  auto_renew INTEGER NOT NULL,
  -- active (paid through period_end), grace (period ended unpaid; reads only), lapsed (files deleted)
  status TEXT NOT NULL,
  grace_ends_at INTEGER,
  version INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  CHECK (status IN ('active', 'grace', 'lapsed')),
  CHECK (used_bytes >= 0)
) STRICT;
CREATE INDEX storage_subscriptions_due_idx ON storage_subscriptions (period_end) WHERE status = 'active';
CREATE INDEX storage_subscriptions_grace_idx ON storage_subscriptions (grace_ends_at) WHERE status = 'grace';

CREATE TABLE storage_quotes (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL,
  plan_id TEXT NOT NULL,
  -- new, reactivate, upgrade, downgrade or unchanged
  change_kind TEXT NOT NULL,
  amount_micro INTEGER NOT NULL,
  balance_after_micro INTEGER NOT NULL,
  period_start INTEGER NOT NULL,
  period_end INTEGER NOT NULL,
  -- The subscription's version the quote was priced on (0: none).
  quota_version INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  used_at INTEGER
) STRICT;
CREATE INDEX storage_quotes_user_idx ON storage_quotes (user_id, created_at);

CREATE TABLE storage_charges (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL,
  plan_id TEXT NOT NULL,
  -- subscribe, reactivate, upgrade or renewal
  charge_kind TEXT NOT NULL,
  amount_micro INTEGER NOT NULL,
  period_start INTEGER NOT NULL,
  period_end INTEGER NOT NULL,
  -- The reference of its `storage_charge` ledger entry.
  reference TEXT NOT NULL UNIQUE,
  created_at INTEGER NOT NULL
) STRICT;
CREATE INDEX storage_charges_user_idx ON storage_charges (user_id, created_at);

CREATE TABLE storage_files (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL,
  -- The operation that made it: one file per operation, whatever is retried.
  operation_id TEXT NOT NULL UNIQUE,
  -- retained or project_asset
  file_kind TEXT NOT NULL,
  project_id TEXT,
  source_type TEXT NOT NULL,
  source_id TEXT NOT NULL,
  output_index INTEGER,
  name TEXT NOT NULL,
  mime TEXT NOT NULL,
  size_bytes INTEGER NOT NULL,
  blob_key TEXT NOT NULL,
  -- available, deleted (quota freed; the bytes go once purged_at is set)
  status TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  deleted_at INTEGER,
  purged_at INTEGER,
  CHECK (status IN ('available', 'deleted'))
) STRICT;
CREATE INDEX storage_files_user_idx ON storage_files (user_id, status, created_at, id);
CREATE INDEX storage_files_purge_idx ON storage_files (deleted_at) WHERE status = 'deleted' AND purged_at IS NULL;

CREATE TABLE storage_operations (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL,
  storefront TEXT NOT NULL,
  -- retain or import
  operation_type TEXT NOT NULL,
  -- pending, completed or failed
  status TEXT NOT NULL,
  source_type TEXT NOT NULL,
  source_id TEXT NOT NULL,
  output_index INTEGER,
  project_id TEXT,
  asset_role TEXT,
  -- Secret seed of the copy's blob key: a retried copy overwrites its own object.
  copy_seed TEXT NOT NULL,
  file_id TEXT,
  error_code TEXT,
  error_message TEXT,
  created_at INTEGER NOT NULL,
  finished_at INTEGER,
  CHECK (status IN ('pending', 'completed', 'failed'))
) STRICT;
CREATE INDEX storage_operations_user_idx ON storage_operations (user_id, created_at);
