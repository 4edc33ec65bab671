/** Rows of the foundation tables, as the store ports hand them out. */
import type { ApiKeyLimitColumns } from '../../domain/api-key-limit-columns.ts';

export interface UsersRow {
  id: string;
  email: string | null;
  password_hash: string | null;
  is_admin: number;
  /** The sum of the ledger entries: money the user has. */
  balance_micro: number;
  /**
   * Reserved by running chat requests (their holds, migration 009), at most `balance_micro`: what the
   * user can spend is balance_micro - held_micro. Not a ledger movement until a request settles.
   */
  held_micro: number;
  webhook_secret: string;
  /**
   * The secret the last rotation replaced; it keeps signing beside the new one for a grace period
   * after `webhook_secret_rotated_at` (services/webhooks). Optional so a new user can leave both out.
   */
  webhook_secret_previous?: string | null;
  webhook_secret_rotated_at?: number | null;
  created_at: number;
  /** 'organization': an account people reach through organization_members (migration 042), never signed in as. */
  kind?: AccountKind;
  /** An organization's name; null for a person. */
  name?: string | null;
  /** An organization's tokens per minute over all its keys (migration 044); null: no limit. */
  tpm_limit?: number | null;
}

export type AccountKind = 'person' | 'organization';

/** A key's row; its limit columns (migration 027) are the domain's ApiKeyLimitColumns. */
export interface ApiKeysRow extends ApiKeyLimitColumns {
  id: string;
  user_id: string;
  name: string;
  /** The first characters of the key, shown in lists so a user can tell keys apart. */
  prefix: string;
  /** SHA-256 of the whole key; the key itself is never stored. */
  key_hash: string;
  created_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
  /** 1: the key may manage its user's keys, within its own limits (migration 030); 0 otherwise. */
  manage_keys: number;
  /** An organization's key: the member it belongs to, named by every entry moved through it (migration 042). */
  member_id?: string | null;
}

/** What a key spent and holds in a period: 'total', or a calendar month 'YYYY-MM' (migration 027). */
export interface ApiKeySpendRow {
  key_id: string;
  period: string;
  spent_micro: number;
  held_micro: number;
}

export interface LedgerEntriesRow {
  id: string;
  user_id: string;
  /** What moved the money; with `reference`, unique, so each movement is written at most once. */
  kind: string;
  reference: string;
  amount_micro: number;
  balance_after_micro: number;
  note: string | null;
  created_at: number;
  /** On an organization's account: the member whose key moved the money (migration 042). */
  member_id?: string | null;
}

export interface IdempotencyRecordsRow {
  scope: string;
  key: string;
  request_hash: string;
  /** The first response, replayed for a retry with the same body. */
  response_json: string | null;
  status_code: number | null;
  created_at: number;
}

export interface SchemaMigrationsRow {
  version: number;
  name: string;
  applied_at: number;
}
