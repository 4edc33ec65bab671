/** The shapes of the organization endpoints (issue 33): an organization, a member, an invitation. */
import type { UserRow } from '../../../ports/account-store.port.ts';
import type { MemberWithEmail, OrganizationInvitationRow, OrganizationRole } from '../../../ports/organization-store.port.ts';
import { type JsonSchema, iso } from '../../schemas.ts';

const role: JsonSchema = { enum: ['owner', 'admin', 'member'], description: 'owner: billing, members, everything; admin: keys, limits, settings; member: use, own keys' };

export const organizationSchema: JsonSchema = {
  type: 'object',
  required: ['id', 'name', 'role', 'balanceMicroUsd', 'tokensPerMinute', 'createdAt'],
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    role: { ...role, description: "The caller's role in it" },
    balanceMicroUsd: { type: 'string', description: 'What the organization can spend (its balance less what running requests hold), integer micro-USD' },
    tokensPerMinute: { type: ['integer', 'null'], description: 'Input plus output tokens per minute over all its keys (429 beyond, in the protocol\'s shape); null: no limit' },
    createdAt: { type: 'string', format: 'date-time' },
  },
};

export const memberSchema: JsonSchema = {
  type: 'object',
  required: ['userId', 'email', 'role', 'joinedAt', 'monthlyCapMicroUsd', 'spentThisMonthMicroUsd'],
  properties: {
    userId: { type: 'string' },
    email: { type: ['string', 'null'] },
    role,
    joinedAt: { type: 'string', format: 'date-time' },
    monthlyCapMicroUsd: { type: ['integer', 'null'], description: "What the member may spend of the organization's balance per calendar month (UTC), integer micro-USD; null: no cap" },
    spentThisMonthMicroUsd: { type: 'integer', description: 'What they spent through their keys this calendar month (UTC), integer micro-USD' },
  },
};

export const invitationSchema: JsonSchema = {
  type: 'object',
  required: ['id', 'email', 'role', 'createdAt', 'expiresAt'],
  properties: { id: { type: 'string' }, email: { type: 'string' }, role, createdAt: { type: 'string', format: 'date-time' }, expiresAt: { type: 'string', format: 'date-time' } },
};

export const roleSchema = role;

export function presentOrganization(organization: UserRow, callerRole: OrganizationRole) {
  return {
    id: organization.id,
    name: organization.name ?? organization.id,
    role: callerRole,
    balanceMicroUsd: String(Math.max(0, Number(organization.balance_micro) - Number(organization.held_micro))),
    tokensPerMinute: organization.tpm_limit === null || organization.tpm_limit === undefined ? null : Number(organization.tpm_limit),
    createdAt: iso(Number(organization.created_at)),
  };
}

export function presentMember(member: MemberWithEmail, spentThisMonth: ReadonlyMap<string, number>) {
  return {
    userId: member.user_id,
    email: member.email,
    role: member.role,
    joinedAt: iso(Number(member.created_at)),
    monthlyCapMicroUsd: member.monthly_cap_micro === null || member.monthly_cap_micro === undefined ? null : Number(member.monthly_cap_micro),
    spentThisMonthMicroUsd: spentThisMonth.get(member.user_id) ?? 0,
  };
}

export function presentInvitation(invitation: OrganizationInvitationRow) {
  return { id: invitation.id, email: invitation.email, role: invitation.role, createdAt: iso(Number(invitation.created_at)), expiresAt: iso(Number(invitation.expires_at)) };
}
