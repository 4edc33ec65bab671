/** Rows of the organization tables (migration 042), as the store ports hand them out. */

/** owner: billing, members, everything; admin: keys, limits, settings; member: use, own keys. */
export type OrganizationRole = 'owner' | 'admin' | 'member';

export interface OrganizationMembersRow {
  organization_id: string;
  user_id: string;
  role: OrganizationRole;
  created_at: number;
  /** What the member may spend of the organization's balance per calendar month (UTC); null: no cap (migration 043). */
  monthly_cap_micro?: number | null;
}

/** What a member spent and holds in the organization in a month ('YYYY-MM'), moved beside their key's spend. */
export interface OrganizationMemberSpendRow {
  organization_id: string;
  user_id: string;
  spend_month: string;
  spent_micro: number;
  held_micro: number;
}

export interface OrganizationInvitationsRow {
  id: string;
  organization_id: string;
  /** Normalised (lower case): only the person signed in with this address accepts it. */
  email: string;
  role: OrganizationRole;
  /** SHA-256 of the link's token; the token itself is only in the mail. */
  token_hash: string;
  invited_by: string;
  created_at: number;
  expires_at: number;
  accepted_at: number | null;
  accepted_by: string | null;
  revoked_at: number | null;
}
