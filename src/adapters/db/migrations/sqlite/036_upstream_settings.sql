-- Live upstream settings (issue 32, item 4; src/ports/upstream-settings-store.port.ts): providers and
-- their keys, routes and model settings the operator changes through the admin API, laid over the
-- config file's by name. Each setting carries the version the next change must name; the audit log
-- keeps every change; the revision row tells every process polling it that something changed.
CREATE TABLE upstream_providers (
  name TEXT PRIMARY KEY,
  type TEXT NOT NULL,
  base_url TEXT,
  timeout_ms INTEGER NOT NULL,
  concurrency INTEGER NOT NULL,
  options_json TEXT NOT NULL,
  enabled INTEGER NOT NULL,
  version INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  updated_by TEXT NOT NULL
) STRICT;

-- A key belongs to a live provider (the directory serves keys only under one); deleting the provider
-- takes its keys with it. The secret is stored sealed.
CREATE TABLE upstream_keys (
  id TEXT PRIMARY KEY,
  provider TEXT NOT NULL REFERENCES upstream_providers (name) ON DELETE CASCADE,
  secret_sealed TEXT NOT NULL,
  hint TEXT NOT NULL,
  label TEXT,
  -- A share of picks, not a count: fractions are allowed.
  weight REAL NOT NULL,
  enabled INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
) STRICT;
CREATE INDEX upstream_keys_provider_idx ON upstream_keys (provider);

CREATE TABLE upstream_routes (
  model_id TEXT PRIMARY KEY,
  entries_json TEXT NOT NULL,
  version INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  updated_by TEXT NOT NULL
) STRICT;

CREATE TABLE model_settings (
  model_id TEXT PRIMARY KEY,
  override_json TEXT NOT NULL,
  version INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  updated_by TEXT NOT NULL
) STRICT;

CREATE TABLE upstream_audit (
  id TEXT PRIMARY KEY,
  at INTEGER NOT NULL,
  actor TEXT NOT NULL,
  subject_kind TEXT NOT NULL,
  subject TEXT NOT NULL,
  action TEXT NOT NULL,
  before_json TEXT,
  after_json TEXT
) STRICT;
-- Listed newest first, a page after the (at, id) of the previous page's last row.
CREATE INDEX upstream_audit_at_idx ON upstream_audit (at, id);

-- One row, bumped by every change in the change's transaction; processes poll it to learn of changes
-- they missed on the bus.
CREATE TABLE upstream_settings_revision (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  revision INTEGER NOT NULL
) STRICT;
INSERT INTO upstream_settings_revision (id, revision) VALUES (1, 0);
