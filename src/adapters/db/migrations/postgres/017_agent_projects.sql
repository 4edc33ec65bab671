-- The agent, part 3: brand projects (SPEC "Agent resources": Project; rule 9). A project holds
-- instructions, brand settings and model defaults; every accepted change writes an immutable version
-- row (the full snapshot), and the project row carries the current one for lists and reads.
CREATE TABLE agent_projects (
  id text PRIMARY KEY,
  user_id text NOT NULL,
  storefront text NOT NULL,
  name text NOT NULL,
  -- The current version; updates are a compare-and-set on it (expectedVersion).
  version integer NOT NULL,
  -- The current version's content (JSON: name, instructions, brand, modelDefaults).
  snapshot_json text NOT NULL,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  deleted_at bigint
);
CREATE INDEX agent_projects_list_idx ON agent_projects (user_id, storefront, updated_at, id) WHERE deleted_at IS NULL;

-- Never updated nor deleted: a run names the version it started with.
CREATE TABLE agent_project_versions (
  project_id text NOT NULL,
  version integer NOT NULL,
  snapshot_json text NOT NULL,
  created_at bigint NOT NULL,
  PRIMARY KEY (project_id, version)
);

-- Files of a project (a logo, product shots…), copies made by the asset import.
CREATE TABLE agent_project_assets (
  id text PRIMARY KEY,
  project_id text NOT NULL,
  user_id text NOT NULL,
  role text NOT NULL,
  name text NOT NULL,
  mime text NOT NULL,
  size_bytes bigint NOT NULL,
  blob_key text NOT NULL,
  source_artifact_id text,
  created_at bigint NOT NULL,
  deleted_at bigint
);
CREATE INDEX agent_project_assets_list_idx ON agent_project_assets (project_id, created_at, id) WHERE deleted_at IS NULL;

CREATE INDEX agent_conversations_project_idx ON agent_conversations (project_id, last_activity_at, id) WHERE project_id IS NOT NULL AND deleted_at IS NULL;
