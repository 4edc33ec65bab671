-- Live upstream settings (issue 32, item 4; src/ports/upstream-settings-store.port.ts): providers and
-- their keys, routes and model settings the operator changes through the admin API, laid over the
-- config file's by name. Each setting carries the version the next change must name; the audit log
-- keeps every change; the revision row tells every process polling it that something changed.
CREATE TABLE upstream_providers (
  name text PRIMARY KEY,
  type text NOT NULL,
  base_url text,
  timeout_ms integer NOT NULL,
  concurrency integer NOT NULL,
  options_json text NOT NULL,
  enabled integer NOT NULL,
  version integer NOT NULL,
  updated_at bigint NOT NULL,
  updated_by text NOT NULL
);

-- A key belongs to a live provider (the directory serves keys only under one); deleting the provider
-- takes its keys with it. The secret is stored sealed.
CREATE TABLE upstream_keys (
  id text PRIMARY KEY,
  provider text NOT NULL REFERENCES upstream_providers (name) ON DELETE CASCADE,
  secret_sealed text NOT NULL,
  hint text NOT NULL,
  label text,
  -- A share of picks, not a count: fractions are allowed.
  weight double precision NOT NULL,
  enabled integer NOT NULL,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL
);
CREATE INDEX upstream_keys_provider_idx ON upstream_keys (provider);

CREATE TABLE upstream_routes (
  model_id text PRIMARY KEY,
  entries_json text NOT NULL,
  version integer NOT NULL,
  updated_at bigint NOT NULL,
  updated_by text NOT NULL
);

CREATE TABLE model_settings (
  model_id text PRIMARY KEY,
  override_json text NOT NULL,
  version integer NOT NULL,
  updated_at bigint NOT NULL,
  updated_by text NOT NULL
);

CREATE TABLE upstream_audit (
  id text PRIMARY KEY,
  at bigint NOT NULL,
  actor text NOT NULL,
  subject_kind text NOT NULL,
  subject text NOT NULL,
  action text NOT NULL,
  before_json text,
  after_json text
);
-- Listed newest first, a page after the (at, id) of the previous page's last row.
CREATE INDEX upstream_audit_at_idx ON upstream_audit (at, id);

-- One row, bumped by every change in the change's transaction; processes poll it to learn of changes
-- they missed on the bus.
CREATE TABLE upstream_settings_revision (
  id integer PRIMARY KEY CHECK (id = 1),
  revision bigint NOT NULL
);
INSERT INTO upstream_settings_revision (id, revision) VALUES (1, 0);
