/**
 * Rows of the customer groups (issue 33, item 4; migration 040): groups with their price multipliers
 * (parts per million; per-model ones as JSON `{modelId: ppm}`) and the account each assignment names.
 */
export interface CustomerGroupsRow {
  name: string;
  description: string | null;
  multiplier_ppm: number;
  /** `{modelId: ppm}`: per-model multipliers that beat `multiplier_ppm`. */
  models_json: string;
  version: number;
  created_at: number;
  updated_at: number;
  /** Who changed it last (an admin session's user id, or `admin-token`). */
  updated_by: string;
}

/** An account (users.id: a user or an organization) put in a group; no row: the default group. */
export interface CustomerGroupMembersRow {
  account_id: string;
  group_name: string;
  updated_at: number;
  updated_by: string;
}
