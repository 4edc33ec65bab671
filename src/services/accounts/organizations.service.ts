import { createHash, randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { normalizeEmail } from '../../domain/accounts/new-account.ts';
import { assertMayDo, isOrganizationRole, mayDo, type OrganizationAction } from '../../domain/accounts/organization-roles.ts';
import { OWNER_AUTHORITY } from '../../domain/api-key-authority.ts';
import type { ApiKeyLimitsChange } from '../../domain/api-key-limits.ts';
import { AppError, invalidInput } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import { spendMonthOf } from '../../domain/ledger/key-spend-period.ts';
import { newWebhookSecret } from '../../domain/webhook-secret.ts';
import type { AccountStore, ApiKeyRow, UserRow } from '../../ports/account-store.port.ts';
import type { Mailer } from '../../ports/mailer.port.ts';
import type { MemberWithEmail, Membership, OrganizationInvitationRow, OrganizationRole, OrganizationStore } from '../../ports/organization-store.port.ts';
import type { UnitOfWork } from '../../ports/unit-of-work.port.ts';
import type { ApiKeysService, CreatedApiKey } from './api-keys.service.ts';

/** An invitation travels through mailboxes: it lasts a week and works once. */
export const INVITATION_TTL_MS = 7 * 24 * 3600_000;

export interface OrganizationsDeps {
  organizations: OrganizationStore;
  accounts: AccountStore;
  uow: UnitOfWork;
  apiKeys: ApiKeysService;
  mailer: Mailer;
  publicBaseUrl: () => string;
  logger: Logger;
}

/** The caller's place in an organization: its account and their role. */
export interface OrganizationSeat {
  organization: UserRow;
  role: OrganizationRole;
}

export interface SentInvitation {
  invitation: OrganizationInvitationRow;
  /** The link's token: in the mail, and in this answer only to the owner who sent it (to pass on by hand). */
  token: string;
}

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

function validateName(name: unknown): string {
  const clean = typeof name === 'string' ? name.trim() : '';
  if (clean.length === 0 || clean.length > 100) throw invalidInput('name must be 1 to 100 characters', 'name');
  return clean;
}

function validateRole(role: unknown): OrganizationRole {
  if (!isOrganizationRole(role)) throw invalidInput('role must be owner, admin or member', 'role');
  return role;
}

/**
 * Organizations (issue 33, items 1-2): accounts that people share. An organization owns a balance,
 * keys and the books like a person's account does; its members act in it by role
 * (domain/accounts/organization-roles.ts). Every call names the person asking (a signed-in session),
 * and the role check is here, so no route skips it.
 */
export class OrganizationsService {
  readonly #deps: OrganizationsDeps;
  readonly #sending = new Set<Promise<void>>();

  constructor(deps: OrganizationsDeps) {
    this.#deps = deps;
  }

  async create(personId: string, name: unknown, now: number = Date.now()): Promise<OrganizationSeat> {
    const clean = validateName(name);
    const { organizations, accounts, uow } = this.#deps;
    const person = await accounts.findUser(uow.direct, personId);
    if (!person || person.kind === 'organization') throw new AppError('forbidden', 'an organization is created by a person');
    const organization = await uow.transaction((tx) => organizations.createOrganization(tx, { id: newId('org', now), name: clean, ownerId: personId, webhookSecret: newWebhookSecret() }, now));
    return { organization, role: 'owner' };
  }

  listMine(personId: string): Promise<Membership[]> {
    return this.#deps.organizations.listMemberships(this.#deps.uow.direct, personId);
  }

  /** The caller's seat, when their role allows `action`; not_found for someone who is not a member. */
  async seat(personId: string, organizationId: string, action: OrganizationAction = 'use'): Promise<OrganizationSeat> {
    const db = this.#deps.uow.direct;
    const [organization, member] = await Promise.all([this.#deps.organizations.findOrganization(db, organizationId), this.#deps.organizations.findMember(db, organizationId, personId)]);
    if (!organization || !member) throw new AppError('not_found', 'organization not found');
    assertMayDo(member.role, action);
    return { organization, role: member.role };
  }

  async members(personId: string, organizationId: string): Promise<MemberWithEmail[]> {
    await this.seat(personId, organizationId);
    return this.#deps.organizations.listMembers(this.#deps.uow.direct, organizationId);
  }

  /** Emails a single-use link for `email` to join with `role`; an owner invites. */
  async invite(personId: string, organizationId: string, input: { email: unknown; role?: unknown }, now: number = Date.now()): Promise<SentInvitation> {
    const { organization } = await this.seat(personId, organizationId, 'members');
    if (typeof input.email !== 'string') throw invalidInput('email is required', 'email');
    const email = normalizeEmail(input.email);
    const role = validateRole(input.role ?? 'member');
    const { organizations, accounts, uow } = this.#deps;
    const existing = await accounts.findUserByEmail(uow.direct, email);
    if (existing && (await organizations.findMember(uow.direct, organizationId, existing.id))) throw new AppError('conflict', `${email} is a member already`, { param: 'email' });
    const token = randomBytes(32).toString('base64url');
    const invitation: OrganizationInvitationRow = {
      id: newId('inv', now),
      organization_id: organizationId,
      email,
      role,
      token_hash: hashToken(token),
      invited_by: personId,
      created_at: now,
      expires_at: now + INVITATION_TTL_MS,
      accepted_at: null,
      accepted_by: null,
      revoked_at: null,
    };
    await organizations.addInvitation(uow.direct, invitation);
    this.#mail(email, organization.name ?? organization.id, role, token);
    return { invitation, token };
  }

  async pendingInvitations(personId: string, organizationId: string, now: number = Date.now()): Promise<OrganizationInvitationRow[]> {
    await this.seat(personId, organizationId, 'members');
    return this.#deps.organizations.listPendingInvitations(this.#deps.uow.direct, organizationId, now);
  }

  async revokeInvitation(personId: string, organizationId: string, invitationId: string, now: number = Date.now()): Promise<void> {
    await this.seat(personId, organizationId, 'members');
    if (!(await this.#deps.organizations.revokeInvitation(this.#deps.uow.direct, organizationId, invitationId, now))) throw new AppError('not_found', 'no pending invitation with this id');
  }

  /**
   * Joins the organization of an invitation's link. Only the person signed in with the invited
   * address accepts it (the address is what the owner vouched for); it works once.
   */
  async accept(personId: string, token: unknown, now: number = Date.now()): Promise<OrganizationSeat> {
    if (typeof token !== 'string' || token.length === 0 || token.length > 200) throw invalidInput('token is required', 'token');
    const { organizations, accounts, uow } = this.#deps;
    const invitation = await organizations.findInvitationByHash(uow.direct, hashToken(token));
    const ended = () => new AppError('not_found', 'this invitation is not valid: it was used, withdrawn or has expired');
    if (!invitation || invitation.accepted_at !== null || invitation.revoked_at !== null || invitation.expires_at <= now) throw ended();
    const person = await accounts.findUser(uow.direct, personId);
    if (!person?.email || person.email !== invitation.email) throw new AppError('forbidden', `this invitation is for ${invitation.email}: sign in with that address to accept it`);
    return uow.transaction(async (tx) => {
      await organizations.lockOrganization(tx, invitation.organization_id);
      if (!(await organizations.acceptInvitation(tx, invitation.id, personId, now))) throw ended();
      const organization = await organizations.findOrganization(tx, invitation.organization_id);
      if (!organization) throw ended();
      // Someone who is a member already keeps their role: an invitation never demotes.
      if (!(await organizations.addMember(tx, { organization_id: organization.id, user_id: personId, role: invitation.role, created_at: now }))) {
        const member = await organizations.findMember(tx, organization.id, personId);
        return { organization, role: member?.role ?? invitation.role };
      }
      return { organization, role: invitation.role };
    });
  }

  /**
   * An owner or admin sets what a member may spend of the organization's balance per calendar month
   * (UTC; null: no cap). Checked by the ledger in the transaction of every charge through their keys.
   */
  async setMonthlyCap(personId: string, organizationId: string, memberId: string, capMicro: unknown): Promise<void> {
    if (capMicro !== null && (typeof capMicro !== 'number' || !Number.isSafeInteger(capMicro) || capMicro < 0)) {
      throw invalidInput('monthlyCapMicroUsd must be a whole non-negative number of micro-USD, or null for no cap', 'monthlyCapMicroUsd');
    }
    await this.seat(personId, organizationId, 'manage_keys');
    if (!(await this.#deps.organizations.setMonthlyCap(this.#deps.uow.direct, organizationId, memberId, capMicro))) throw new AppError('not_found', 'not a member of this organization');
  }

  /**
   * An owner or admin sets the organization's tokens per minute over all its keys (null: none). Every
   * process drops the organization's keys from its auth cache, so the next request reads the limit.
   */
  async setTokensPerMinute(personId: string, organizationId: string, limit: unknown): Promise<void> {
    if (limit !== null && (typeof limit !== 'number' || !Number.isSafeInteger(limit) || limit < 1)) {
      throw invalidInput('tokensPerMinute must be a whole number of tokens above 0, or null for no limit', 'tokensPerMinute');
    }
    await this.seat(personId, organizationId, 'manage_keys');
    await this.#deps.organizations.setTokensPerMinute(this.#deps.uow.direct, organizationId, limit);
    await this.#deps.apiKeys.forgetCached(await this.#deps.apiKeys.list(OWNER_AUTHORITY, organizationId));
  }

  /** Each member's spend in the organization this calendar month (UTC), what their cap counts. */
  async spendThisMonth(personId: string, organizationId: string, now: number = Date.now()): Promise<Map<string, number>> {
    await this.seat(personId, organizationId);
    return this.#deps.organizations.memberSpendInMonth(this.#deps.uow.direct, organizationId, spendMonthOf(now));
  }

  /** An owner changes a member's role; the last owner stays an owner. */
  async changeRole(personId: string, organizationId: string, memberId: string, role: unknown): Promise<void> {
    const next = validateRole(role);
    await this.seat(personId, organizationId, 'members');
    const { organizations, uow } = this.#deps;
    await uow.transaction(async (tx) => {
      await organizations.lockOrganization(tx, organizationId);
      const member = await organizations.findMember(tx, organizationId, memberId);
      if (!member) throw new AppError('not_found', 'not a member of this organization');
      if (member.role === 'owner' && next !== 'owner' && (await organizations.countOwners(tx, organizationId)) <= 1) {
        throw new AppError('conflict', 'the last owner stays an owner: make someone else an owner first');
      }
      await organizations.setRole(tx, organizationId, memberId, next);
    });
  }

  /**
   * Removes a member (an owner removes anyone; anyone may leave). Their keys of the organization are
   * revoked in the same transaction, and every process drops them at once, as a revoked key.
   */
  async removeMember(personId: string, organizationId: string, memberId: string, now: number = Date.now()): Promise<void> {
    await this.seat(personId, organizationId, memberId === personId ? 'use' : 'members');
    const { organizations, accounts, uow } = this.#deps;
    const revoked = await uow.transaction(async (tx) => {
      await organizations.lockOrganization(tx, organizationId);
      const member = await organizations.findMember(tx, organizationId, memberId);
      if (!member) throw new AppError('not_found', 'not a member of this organization');
      if (member.role === 'owner' && (await organizations.countOwners(tx, organizationId)) <= 1) {
        throw new AppError('conflict', 'the last owner cannot leave: make someone else an owner first');
      }
      const keys = await organizations.listLiveKeysOfMember(tx, organizationId, memberId);
      for (const key of keys) await accounts.revokeKey(tx, key.id, organizationId, now);
      await organizations.removeMember(tx, organizationId, memberId);
      return keys;
    });
    await this.#deps.apiKeys.announceRevoked(revoked);
  }

  /** An organization's key for the caller (any member); it names them in every entry it moves. */
  async createKey(personId: string, organizationId: string, input: { name?: string | undefined; limits?: ApiKeyLimitsChange | undefined }, now: number = Date.now()): Promise<CreatedApiKey> {
    await this.seat(personId, organizationId);
    return this.#deps.apiKeys.create(OWNER_AUTHORITY, organizationId, { name: input.name, limits: input.limits, memberId: personId }, now);
  }

  /** Every key of the organization for an owner or admin; the caller's own for a member. */
  async listKeys(personId: string, organizationId: string): Promise<ApiKeyRow[]> {
    const { role } = await this.seat(personId, organizationId);
    const keys = await this.#deps.apiKeys.list(OWNER_AUTHORITY, organizationId);
    return mayDo(role, 'manage_keys') ? keys : keys.filter((k) => k.member_id === personId);
  }

  async revokeKey(personId: string, organizationId: string, keyId: string): Promise<ApiKeyRow> {
    const keys = await this.listKeys(personId, organizationId);
    if (!keys.some((k) => k.id === keyId)) throw new AppError('not_found', 'API key not found');
    return this.#deps.apiKeys.revoke(OWNER_AUTHORITY, keyId, organizationId);
  }

  /** Waits for the mails under way (at shut-down, and in tests). */
  async settled(): Promise<void> {
    await Promise.all([...this.#sending]);
  }

  /** The link an invitation's mail carries. */
  invitationUrl(token: string): string {
    return `${this.#deps.publicBaseUrl()}/api/v1/organizations/invitations/open?token=${token}`;
  }

  #mail(email: string, organizationName: string, role: OrganizationRole, token: string): void {
    const url = this.invitationUrl(token);
    const sending = this.#deps.mailer
      .send({
        to: email,
        subject: `You are invited to ${organizationName} on Switchboard`,
        text: [
          `You are invited to join ${organizationName} on Switchboard as ${role === 'member' ? 'a member' : `an ${role}`}.`,
          '',
          `Open this link within 7 days, signed in as ${email}, to accept; it works once: ${url}`,
          '',
          'If you did not expect it, ignore this message: nothing changes without the link.',
        ].join('\n'),
      })
      .catch((error: unknown) => this.#deps.logger.error({ err: error, mailer: this.#deps.mailer.describe }, 'invitation mail failed'))
      .finally(() => this.#sending.delete(sending));
    this.#sending.add(sending);
  }
}
