/**
 * Organizations as the account services see them (issue 33, items 1-2): an organization is an
 * account (its users row, kind 'organization': balance, keys, ledger), its members with their roles,
 * and the invitations that bring people in. Methods take the transaction first, as every store port.
 * test/contract/organization-store.contract.test.ts runs it on both engines.
 */
import type { ApiKeysRow, UsersRow } from './store-rows/foundation.rows.ts';
import type { OrganizationInvitationsRow, OrganizationMembersRow, OrganizationRole } from './store-rows/organizations.rows.ts';
import type { StoreTransaction } from './store-transaction.port.ts';

export type { OrganizationRole } from './store-rows/organizations.rows.ts';
export type OrganizationMemberRow = OrganizationMembersRow;
export type OrganizationInvitationRow = OrganizationInvitationsRow;

/** A member with the address they sign in with. */
export interface MemberWithEmail extends OrganizationMembersRow {
  email: string | null;
}

/** An organization a person belongs to, and their role in it. */
export interface Membership {
  organization: UsersRow;
  role: OrganizationRole;
  joinedAt: number;
}

export interface OrganizationStore {
  /** Opens the organization's account and makes `ownerId` its owner, in the caller's transaction. */
  createOrganization(tx: StoreTransaction, organization: { id: string; name: string; ownerId: string; webhookSecret: string }, now: number): Promise<UsersRow>;
  /** The organization's account row; undefined for a person's account or no account. */
  findOrganization(tx: StoreTransaction, id: string): Promise<UsersRow | undefined>;
  /**
   * Serialises changes to one organization's members (PostgreSQL: its account row, FOR UPDATE;
   * SQLite has one writer), so two owners removing each other cannot both pass the last-owner check.
   */
  lockOrganization(tx: StoreTransaction, id: string): Promise<void>;
  findMember(tx: StoreTransaction, organizationId: string, userId: string): Promise<OrganizationMemberRow | undefined>;
  /** Adds a member; false when they were one already (nothing changes then). */
  addMember(tx: StoreTransaction, row: OrganizationMemberRow): Promise<boolean>;
  /** Changes a member's role; false when they are not a member. */
  setRole(tx: StoreTransaction, organizationId: string, userId: string, role: OrganizationRole): Promise<boolean>;
  /** Removes a member; false when they were not one. */
  removeMember(tx: StoreTransaction, organizationId: string, userId: string): Promise<boolean>;
  /** Sets the organization's tokens per minute over all its keys (null: none). */
  setTokensPerMinute(tx: StoreTransaction, organizationId: string, limit: number | null): Promise<void>;
  /** Sets a member's monthly cap (null: none); false when they are not a member. */
  setMonthlyCap(tx: StoreTransaction, organizationId: string, userId: string, capMicro: number | null): Promise<boolean>;
  /** Each member's spend in the organization in a month ('YYYY-MM'): what their cap counts. */
  memberSpendInMonth(tx: StoreTransaction, organizationId: string, month: string): Promise<Map<string, number>>;
  countOwners(tx: StoreTransaction, organizationId: string): Promise<number>;
  listMembers(tx: StoreTransaction, organizationId: string): Promise<MemberWithEmail[]>;
  /** The organizations a person belongs to, oldest membership first. */
  listMemberships(tx: StoreTransaction, userId: string): Promise<Membership[]>;
  /** The organization's keys that belong to a member and are not revoked (revoked when they leave). */
  listLiveKeysOfMember(tx: StoreTransaction, organizationId: string, userId: string): Promise<ApiKeysRow[]>;

  addInvitation(tx: StoreTransaction, row: OrganizationInvitationRow): Promise<void>;
  findInvitationByHash(tx: StoreTransaction, tokenHash: string): Promise<OrganizationInvitationRow | undefined>;
  /** Pending ones (not accepted, revoked or expired at `now`), newest first. */
  listPendingInvitations(tx: StoreTransaction, organizationId: string, now: number): Promise<OrganizationInvitationRow[]>;
  /** Compare-and-set: true for the one call that accepted a pending, unexpired invitation. */
  acceptInvitation(tx: StoreTransaction, id: string, userId: string, now: number): Promise<boolean>;
  /** Compare-and-set: true when a pending invitation of the organization was revoked by this call. */
  revokeInvitation(tx: StoreTransaction, organizationId: string, id: string, now: number): Promise<boolean>;
}
