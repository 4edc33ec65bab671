import type { MemberWithEmail, Membership, OrganizationInvitationRow, OrganizationMemberRow, OrganizationRole, OrganizationStore } from '../../../ports/organization-store.port.ts';
import type { ApiKeysRow, UsersRow } from '../../../ports/store-rows/foundation.rows.ts';
import type { StoreTransaction } from '../../../ports/store-transaction.port.ts';
import { lockAccount } from '../ledger/ledger.repository.ts';
import { insertUser } from '../repositories/users.repository.ts';
import { executorOf } from '../schema.ts';

/** The organization store over Kysely, for SQLite and PostgreSQL alike. */
export class KyselyOrganizationStore implements OrganizationStore {
  async createOrganization(tx: StoreTransaction, organization: { id: string; name: string; ownerId: string; webhookSecret: string }, now: number): Promise<UsersRow> {
    const db = executorOf(tx);
    const row: UsersRow = {
      id: organization.id,
      email: null,
      password_hash: null,
      is_admin: 0,
      balance_micro: 0,
      held_micro: 0,
      webhook_secret: organization.webhookSecret,
      created_at: now,
      kind: 'organization',
      name: organization.name,
    };
    await insertUser(db, row);
    await db.insertInto('organization_members').values({ organization_id: row.id, user_id: organization.ownerId, role: 'owner', created_at: now }).execute();
    return row;
  }

  findOrganization(tx: StoreTransaction, id: string): Promise<UsersRow | undefined> {
    return executorOf(tx).selectFrom('users').selectAll().where('id', '=', id).where('kind', '=', 'organization').executeTakeFirst();
  }

  lockOrganization(tx: StoreTransaction, id: string): Promise<void> {
    return lockAccount(executorOf(tx), id);
  }

  findMember(tx: StoreTransaction, organizationId: string, userId: string): Promise<OrganizationMemberRow | undefined> {
    return executorOf(tx).selectFrom('organization_members').selectAll().where('organization_id', '=', organizationId).where('user_id', '=', userId).executeTakeFirst();
  }

  async addMember(tx: StoreTransaction, row: OrganizationMemberRow): Promise<boolean> {
    const result = await executorOf(tx)
      .insertInto('organization_members')
      .values(row)
      .onConflict((oc) => oc.columns(['organization_id', 'user_id']).doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
  }

  async setRole(tx: StoreTransaction, organizationId: string, userId: string, role: OrganizationRole): Promise<boolean> {
    const result = await executorOf(tx).updateTable('organization_members').set({ role }).where('organization_id', '=', organizationId).where('user_id', '=', userId).executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async removeMember(tx: StoreTransaction, organizationId: string, userId: string): Promise<boolean> {
    const result = await executorOf(tx).deleteFrom('organization_members').where('organization_id', '=', organizationId).where('user_id', '=', userId).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  async setTokensPerMinute(tx: StoreTransaction, organizationId: string, limit: number | null): Promise<void> {
    await executorOf(tx).updateTable('users').set({ tpm_limit: limit }).where('id', '=', organizationId).where('kind', '=', 'organization').execute();
  }

  async setMonthlyCap(tx: StoreTransaction, organizationId: string, userId: string, capMicro: number | null): Promise<boolean> {
    const result = await executorOf(tx).updateTable('organization_members').set({ monthly_cap_micro: capMicro }).where('organization_id', '=', organizationId).where('user_id', '=', userId).executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async memberSpendInMonth(tx: StoreTransaction, organizationId: string, month: string): Promise<Map<string, number>> {
    const rows = await executorOf(tx).selectFrom('organization_member_spend').select(['user_id', 'spent_micro']).where('organization_id', '=', organizationId).where('spend_month', '=', month).execute();
    return new Map(rows.map((r) => [r.user_id, Number(r.spent_micro)]));
  }

  async countOwners(tx: StoreTransaction, organizationId: string): Promise<number> {
    const row = await executorOf(tx)
      .selectFrom('organization_members')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('organization_id', '=', organizationId)
      .where('role', '=', 'owner')
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  listMembers(tx: StoreTransaction, organizationId: string): Promise<MemberWithEmail[]> {
    return executorOf(tx)
      .selectFrom('organization_members as m')
      .innerJoin('users as u', 'u.id', 'm.user_id')
      .select(['m.organization_id', 'm.user_id', 'm.role', 'm.created_at', 'm.monthly_cap_micro', 'u.email'])
      .where('m.organization_id', '=', organizationId)
      .orderBy('m.created_at')
      .orderBy('m.user_id')
      .execute();
  }

  async listMemberships(tx: StoreTransaction, userId: string): Promise<Membership[]> {
    const db = executorOf(tx);
    const members = await db.selectFrom('organization_members').selectAll().where('user_id', '=', userId).orderBy('created_at').execute();
    if (members.length === 0) return [];
    const organizations = await db
      .selectFrom('users')
      .selectAll()
      .where(
        'id',
        'in',
        members.map((m) => m.organization_id),
      )
      .execute();
    const byId = new Map(organizations.map((o) => [o.id, o]));
    return members.flatMap((m) => {
      const organization = byId.get(m.organization_id);
      return organization ? [{ organization, role: m.role, joinedAt: m.created_at }] : [];
    });
  }

  listLiveKeysOfMember(tx: StoreTransaction, organizationId: string, userId: string): Promise<ApiKeysRow[]> {
    return executorOf(tx).selectFrom('api_keys').selectAll().where('user_id', '=', organizationId).where('member_id', '=', userId).where('revoked_at', 'is', null).execute();
  }

  async addInvitation(tx: StoreTransaction, row: OrganizationInvitationRow): Promise<void> {
    await executorOf(tx).insertInto('organization_invitations').values(row).execute();
  }

  findInvitationByHash(tx: StoreTransaction, tokenHash: string): Promise<OrganizationInvitationRow | undefined> {
    return executorOf(tx).selectFrom('organization_invitations').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
  }

  listPendingInvitations(tx: StoreTransaction, organizationId: string, now: number): Promise<OrganizationInvitationRow[]> {
    return executorOf(tx)
      .selectFrom('organization_invitations')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .where('accepted_at', 'is', null)
      .where('revoked_at', 'is', null)
      .where('expires_at', '>', now)
      .orderBy('created_at', 'desc')
      .limit(500)
      .execute();
  }

  async acceptInvitation(tx: StoreTransaction, id: string, userId: string, now: number): Promise<boolean> {
    const result = await executorOf(tx)
      .updateTable('organization_invitations')
      .set({ accepted_at: now, accepted_by: userId })
      .where('id', '=', id)
      .where('accepted_at', 'is', null)
      .where('revoked_at', 'is', null)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async revokeInvitation(tx: StoreTransaction, organizationId: string, id: string, now: number): Promise<boolean> {
    const result = await executorOf(tx)
      .updateTable('organization_invitations')
      .set({ revoked_at: now })
      .where('id', '=', id)
      .where('organization_id', '=', organizationId)
      .where('accepted_at', 'is', null)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }
}
