/**
 * Rows of the live upstream settings (issue 32, item 4): providers and their keys, routes, and model
 * settings (visibility and prices) the operator changes through the admin API. Each setting carries a
 * version the next change must name (`expectedVersion`); every change is written to the audit log.
 * JSON columns hold what the config file holds for the same thing, validated by the same parser.
 */
export interface UpstreamProvidersRow {
  name: string;
  /** API style: openai, anthropic, kie, fal, replicate, switchboard, google, local, … */
  type: string;
  base_url: string | null;
  timeout_ms: number;
  concurrency: number;
  /** The provider's `options` object, as JSON. */
  options_json: string;
  /** 1: routes may use it; 0: skipped by every route. */
  enabled: number;
  version: number;
  updated_at: number;
  /** Who changed it last (an admin session's user id, or `admin-token`). */
  updated_by: string;
}

export interface UpstreamKeysRow {
  id: string;
  provider: string;
  /** The secret, sealed with SWITCHBOARD_SECRET_KEY (AES-256-GCM); never handed out. */
  secret_sealed: string;
  /** What the operator sees of the secret: `sk-…abcd`. */
  hint: string;
  label: string | null;
  /** Share of first picks among the provider's healthy keys (a positive number). */
  weight: number;
  enabled: number;
  created_at: number;
  updated_at: number;
}

export interface UpstreamRoutesRow {
  model_id: string;
  /** `[{provider, model?, priority?, weight?}]` as JSON. */
  entries_json: string;
  version: number;
  updated_at: number;
  updated_by: string;
}

export interface ModelSettingsRow {
  model_id: string;
  /** What `models.<id>` of the config file takes (hidden, name, description, prices), as JSON. */
  override_json: string;
  version: number;
  updated_at: number;
  updated_by: string;
}

export interface UpstreamAuditRow {
  id: string;
  at: number;
  actor: string;
  /** provider, key, route, model or import. */
  subject_kind: string;
  /** The provider name, `provider/keyId`, the model id, or `*` for an import. */
  subject: string;
  /** put, patch, delete or import. */
  action: string;
  /** The setting before and after, as JSON, secrets masked to their hint; null when there was none. */
  before_json: string | null;
  after_json: string | null;
}
