/**
 * The customer groups in the store (issue 33, item 4). Every change bumps the store's revision in its
 * transaction, which every process polls to learn of changes it missed on the bus; changes are
 * written to the upstream audit log with the other price settings.
 */
import type { CustomerGroupMembersRow, CustomerGroupsRow } from './store-rows/customer-groups.rows.ts';
import type { UpstreamAuditRow } from './store-rows/upstreams.rows.ts';
import type { StoreTransaction } from './store-transaction.port.ts';

export interface CustomerGroupRows {
  groups: CustomerGroupsRow[];
  members: CustomerGroupMembersRow[];
  revision: number;
}

export interface CustomerGroupsStore {
  /** Every group and assignment, read in one snapshot. */
  loadAll(tx: StoreTransaction): Promise<CustomerGroupRows>;
  /** A number that grows with every change; cheap (one row). */
  revision(tx: StoreTransaction): Promise<number>;
  /** Bumps the revision (inside the change's transaction) and returns the new one. */
  bumpRevision(tx: StoreTransaction): Promise<number>;

  group(tx: StoreTransaction, name: string): Promise<CustomerGroupsRow | undefined>;
  /** Inserts (expectedVersion undefined: must be absent) or updates at that version; false when it does not hold. */
  putGroup(tx: StoreTransaction, row: CustomerGroupsRow, expectedVersion: number | undefined): Promise<boolean>;
  /** False when absent or at another version. */
  deleteGroup(tx: StoreTransaction, name: string, expectedVersion: number | undefined): Promise<boolean>;
  countMembers(tx: StoreTransaction, name: string): Promise<number>;

  /** The group an account is put in; undefined: the default group. */
  membership(tx: StoreTransaction, accountId: string): Promise<CustomerGroupMembersRow | undefined>;
  setMembership(tx: StoreTransaction, row: CustomerGroupMembersRow): Promise<void>;
  clearMembership(tx: StoreTransaction, accountId: string): Promise<boolean>;
  accountExists(tx: StoreTransaction, accountId: string): Promise<boolean>;

  appendAudit(tx: StoreTransaction, row: UpstreamAuditRow): Promise<void>;
}
