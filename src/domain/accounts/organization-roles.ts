/**
 * What each role of an organization may do (issue 33, item 1): owner — billing, members, everything;
 * admin — keys (everyone's), limits, settings; member — use the organization's balance through their
 * own keys and read their own part of the books.
 */
import { AppError } from '../errors.ts';
import type { OrganizationRole } from '../../ports/store-rows/organizations.rows.ts';

export type OrganizationAction =
  /** Money in: top-ups and redeem codes. */
  | 'billing'
  /** Invite, change roles, remove others, revoke invitations. */
  | 'members'
  /** Every member's keys and the whole organization's books and statistics. */
  | 'manage_keys'
  | 'read_all'
  /** Own keys and own part of the books. */
  | 'use';

const ALLOWED: Record<OrganizationRole, ReadonlySet<OrganizationAction>> = {
  owner: new Set(['billing', 'members', 'manage_keys', 'read_all', 'use']),
  admin: new Set(['manage_keys', 'read_all', 'use']),
  member: new Set(['use']),
};

export const ORGANIZATION_ROLES: readonly OrganizationRole[] = ['owner', 'admin', 'member'];

export function mayDo(role: OrganizationRole, action: OrganizationAction): boolean {
  return ALLOWED[role].has(action);
}

const NEEDS: Record<OrganizationAction, string> = {
  billing: 'only an owner of the organization adds money to it',
  members: 'only an owner of the organization manages its members',
  manage_keys: "only an owner or admin of the organization manages other members' keys",
  read_all: "only an owner or admin of the organization reads the whole organization's books",
  use: 'not a member of this organization',
};

/** Throws forbidden unless the role allows the action. */
export function assertMayDo(role: OrganizationRole, action: OrganizationAction): void {
  if (!mayDo(role, action)) throw new AppError('forbidden', NEEDS[action]);
}

export function isOrganizationRole(value: unknown): value is OrganizationRole {
  return typeof value === 'string' && (ORGANIZATION_ROLES as readonly string[]).includes(value);
}
