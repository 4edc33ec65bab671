-- The agent, part 3: brand projects (SPEC "Agent resources": Project; rule 9). A project holds
-- instructions, brand settings and model defaults; every accepted change writes an immutable version
-- row (the full snapshot), and the project row carries the current one for lists and reads.
CREATE TABLE agent_projects (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL,
  storefront TEXT NOT NULL,
  name TEXT NOT NULL,
  -- The current version; updates are a compare-and-set on it (expectedVersion).
  version INTEGER NOT NULL,
  -- The current version's content (JSON: name, instructions, brand, modelDefaults).
  snapshot_json TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  deleted_at INTEGER
);
CREATE INDEX agent_projects_list_idx ON agent_projects (user_id, storefront, updated_at, id) WHERE deleted_at IS NULL;

-- Never updated nor deleted: a run names the version it started with.
CREATE TABLE agent_project_versions (
  project_id TEXT NOT NULL,
  version INTEGER NOT NULL,
  snapshot_json TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (project_id, version)
);

-- Files of a project (a logo, product shots…), copies made by the asset import.
CREATE TABLE agent_project_assets (
  id TEXT PRIMARY KEY,
  project_id TEXT NOT NULL,
  user_id TEXT NOT NULL,
  role TEXT NOT NULL,
  name TEXT NOT NULL,
  mime TEXT NOT NULL,
  size_bytes INTEGER NOT NULL,
  blob_key TEXT NOT NULL,
  source_artifact_id TEXT,
  created_at INTEGER NOT NULL,
  deleted_at INTEGER
);
CREATE INDEX agent_project_assets_list_idx ON agent_project_assets (project_id, created_at, id) WHERE deleted_at IS NULL;

CREATE INDEX agent_conversations_project_idx ON agent_conversations (project_id, last_activity_at, id) WHERE project_id IS NOT NULL AND deleted_at IS NULL;
