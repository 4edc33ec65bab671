/** The customer groups' tables as Kysely sees them (migration 040): the rows of ports/store-rows/customer-groups.rows.ts, plus the revision row. */
import type { CustomerGroupMembersRow, CustomerGroupsRow } from '../../../ports/store-rows/customer-groups.rows.ts';

export type CustomerGroupsTable = CustomerGroupsRow;
export type CustomerGroupMembersTable = CustomerGroupMembersRow;

/** The one row (id 1) every change bumps. */
export interface CustomerGroupsRevisionTable {
  id: number;
  revision: number;
}

export interface CustomerGroupTables {
  customer_groups: CustomerGroupsTable;
  customer_group_members: CustomerGroupMembersTable;
  customer_groups_revision: CustomerGroupsRevisionTable;
}
