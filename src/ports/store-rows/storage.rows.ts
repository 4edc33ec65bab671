/** Paid storage of agent files (migration 019): subscriptions, quotes, charges, files, operations. */

export type StorageSubscriptionStatus = 'active' | 'grace' | 'lapsed';

export interface StorageSubscriptionsRow {
  user_id: string;
  plan_id: string;
  next_plan_id: string | null;
  quota_bytes: number;
  used_bytes: number;
  anchor_at: number;
  period_index: number;
  period_start: number;
  period_end: number;
  auto_renew: number;
  status: StorageSubscriptionStatus;
  grace_ends_at: number | null;
  version: number;
  created_at: number;
  updated_at: number;
  /**
   * The API key renewals are charged through (migration 031): the caller's of the last subscribe or
   * renewal choice; null for a dashboard session (or before 031).
   */
  api_key_id: string | null;
}

export interface StorageQuotesRow {
  id: string;
  user_id: string;
  plan_id: string;
  change_kind: string;
  amount_micro: number;
  balance_after_micro: number;
  period_start: number;
  period_end: number;
  quota_version: number;
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

export interface StorageChargesRow {
  id: string;
  user_id: string;
  plan_id: string;
  charge_kind: string;
  amount_micro: number;
  period_start: number;
  period_end: number;
  reference: string;
  created_at: number;
  /** The API key the charge was paid through (migration 031); null for a session or before 031. */
  api_key_id: string | null;
}

export type StorageFileKind = 'retained' | 'project_asset';

/** `upload`: a file from disk through the playground uploads API (asset import only). */
export type StorageSourceType = 'generation' | 'artifact' | 'upload';

export interface StorageFilesRow {
  id: string;
  user_id: string;
  operation_id: string;
  file_kind: StorageFileKind;
  project_id: string | null;
  source_type: StorageSourceType;
  source_id: string;
  output_index: number | null;
  name: string;
  mime: string;
  size_bytes: number;
  blob_key: string;
  status: 'available' | 'deleted';
  created_at: number;
  deleted_at: number | null;
  purged_at: number | null;
}

export type StorageOperationStatus = 'pending' | 'completed' | 'failed';

export interface StorageOperationsRow {
  id: string;
  user_id: string;
  storefront: string;
  operation_type: 'retain' | 'import';
  status: StorageOperationStatus;
  source_type: StorageSourceType;
  source_id: string;
  output_index: number | null;
  project_id: string | null;
  asset_role: string | null;
  copy_seed: string;
  file_id: string | null;
  error_code: string | null;
  error_message: string | null;
  created_at: number;
  finished_at: number | null;
}
