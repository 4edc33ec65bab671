/** Brand projects of the agent (migration 017; docs/agent.md "Projects"). Times are ms, JSON is text. */

export interface AgentProjectsRow {
  id: string;
  user_id: string;
  storefront: string;
  name: string;
  version: number;
  /** The current version's content (ProjectContent as JSON). */
  snapshot_json: string;
  created_at: number;
  updated_at: number;
  deleted_at: number | null;
}

/** Immutable: one row per accepted create or update. */
export interface AgentProjectVersionsRow {
  project_id: string;
  version: number;
  snapshot_json: string;
  created_at: number;
}

export interface AgentProjectAssetsRow {
  id: string;
  project_id: string;
  user_id: string;
  /** What the asset is for (logo, product, reference…), as the import names it. */
  role: string;
  name: string;
  mime: string;
  size_bytes: number;
  blob_key: string;
  source_artifact_id: string | null;
  created_at: number;
  deleted_at: number | null;
}
