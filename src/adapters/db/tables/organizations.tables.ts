/** The organization tables as Kysely sees them: the rows of ports/store-rows/organizations.rows.ts. */
import type { OrganizationInvitationsRow, OrganizationMemberSpendRow, OrganizationMembersRow } from '../../../ports/store-rows/organizations.rows.ts';

export interface OrganizationTables {
  organization_members: OrganizationMembersRow;
  organization_invitations: OrganizationInvitationsRow;
  organization_member_spend: OrganizationMemberSpendRow;
}
