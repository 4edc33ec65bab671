/**
 * The customer groups' store (src/ports/customer-groups-store.port.ts) over Kysely, for SQLite and
 * PostgreSQL alike (migration 040). A group's put and guarded delete are one compare-and-set statement
 * on its version, so two admins who read the same version cannot both win.
 */
import type { CustomerGroupRows, CustomerGroupsStore } from '../../../ports/customer-groups-store.port.ts';
import { type Executor, executorOf } from '../schema.ts';

const REVISION_ID = 1;
/** As upstream-settings-store.ts: read again while a change commits under the reads, at most this often. */
const LOAD_ATTEMPTS = 5;

async function readRevision(db: Executor): Promise<number> {
  const row = await db.selectFrom('customer_groups_revision').select('revision').where('id', '=', REVISION_ID).executeTakeFirstOrThrow();
  return Number(row.revision);
}

/** The revision is read before and after the rows: unchanged, no change committed between them (see upstream-settings-store.ts). */
async function loadConsistent(db: Executor): Promise<CustomerGroupRows> {
  let revision = await readRevision(db);
  for (let attempt = 1; ; attempt++) {
    const groups = await db.selectFrom('customer_groups').selectAll().orderBy('name').execute();
    const members = await db.selectFrom('customer_group_members').selectAll().orderBy('account_id').execute();
    const after = await readRevision(db);
    if (after === revision || attempt >= LOAD_ATTEMPTS) {
      return { groups: groups.map((g) => ({ ...g, multiplier_ppm: Number(g.multiplier_ppm) })), members, revision };
    }
    revision = after;
  }
}

function changed(result: { numUpdatedRows: bigint } | { numDeletedRows: bigint }): boolean {
  return ('numUpdatedRows' in result ? result.numUpdatedRows : result.numDeletedRows) > 0n;
}

export const kyselyCustomerGroupsStore: CustomerGroupsStore = {
  loadAll: (tx) => loadConsistent(executorOf(tx)),

  revision: (tx) => readRevision(executorOf(tx)),

  async bumpRevision(tx) {
    const row = await executorOf(tx)
      .updateTable('customer_groups_revision')
      .set((eb) => ({ revision: eb('revision', '+', 1) }))
      .where('id', '=', REVISION_ID)
      .returning('revision')
      .executeTakeFirstOrThrow();
    return Number(row.revision);
  },

  async group(tx, name) {
    const row = await executorOf(tx).selectFrom('customer_groups').selectAll().where('name', '=', name).executeTakeFirst();
    return row ? { ...row, multiplier_ppm: Number(row.multiplier_ppm) } : undefined;
  },

  async putGroup(tx, row, expectedVersion) {
    const db = executorOf(tx);
    if (expectedVersion === undefined) {
      const result = await db.insertInto('customer_groups').values({ ...row, version: 1 }).onConflict((oc) => oc.column('name').doNothing()).executeTakeFirst();
      return (result.numInsertedOrUpdatedRows ?? 0n) > 0n;
    }
    const result = await db
      .updateTable('customer_groups')
      .set({ description: row.description, multiplier_ppm: row.multiplier_ppm, models_json: row.models_json, updated_at: row.updated_at, updated_by: row.updated_by, version: expectedVersion + 1 })
      .where('name', '=', row.name)
      .where('version', '=', expectedVersion)
      .executeTakeFirst();
    return changed(result);
  },

  async deleteGroup(tx, name, expectedVersion) {
    let query = executorOf(tx).deleteFrom('customer_groups').where('name', '=', name);
    if (expectedVersion !== undefined) query = query.where('version', '=', expectedVersion);
    return changed(await query.executeTakeFirst());
  },

  async countMembers(tx, name) {
    const row = await executorOf(tx).selectFrom('customer_group_members').select((eb) => eb.fn.countAll<number>().as('n')).where('group_name', '=', name).executeTakeFirstOrThrow();
    return Number(row.n);
  },

  membership: (tx, accountId) => executorOf(tx).selectFrom('customer_group_members').selectAll().where('account_id', '=', accountId).executeTakeFirst(),

  async setMembership(tx, row) {
    await executorOf(tx)
      .insertInto('customer_group_members')
      .values(row)
      .onConflict((oc) => oc.column('account_id').doUpdateSet({ group_name: row.group_name, updated_at: row.updated_at, updated_by: row.updated_by }))
      .execute();
  },

  async clearMembership(tx, accountId) {
    return changed(await executorOf(tx).deleteFrom('customer_group_members').where('account_id', '=', accountId).executeTakeFirst());
  },

  async accountExists(tx, accountId) {
    return (await executorOf(tx).selectFrom('users').select('id').where('id', '=', accountId).executeTakeFirst()) !== undefined;
  },

  async appendAudit(tx, row) {
    await executorOf(tx).insertInto('upstream_audit').values(row).execute();
  },
};
