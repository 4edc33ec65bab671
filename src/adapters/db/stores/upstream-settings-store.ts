/**
 * The live upstream settings' store (src/ports/upstream-settings-store.port.ts) over Kysely, for SQLite
 * and PostgreSQL alike (migration 036). Every put and guarded delete is one compare-and-set statement
 * on the version, so two admins who read the same version cannot both win, whichever engine.
 */
import type { UpstreamAuditRow } from '../../../ports/store-rows/upstreams.rows.ts';
import type { LiveUpstreamRows, UpstreamSettingsStore } from '../../../ports/upstream-settings-store.port.ts';
import { type Executor, executorOf } from '../schema.ts';

/** The revision row's id (the table holds only it). */
const REVISION_ID = 1;
/**
 * How often loadAll reads again when a change committed while it read. Past that it returns what it
 * read with the revision it read first, which is older than the rows: the next poll reloads.
 */
const LOAD_ATTEMPTS = 5;

async function readRevision(db: Executor): Promise<number> {
  const row = await db.selectFrom('upstream_settings_revision').select('revision').where('id', '=', REVISION_ID).executeTakeFirstOrThrow();
  return Number(row.revision);
}

async function readRows(db: Executor): Promise<Omit<LiveUpstreamRows, 'revision'>> {
  // Ordered so that two loads of the same settings compare equal.
  const providers = await db.selectFrom('upstream_providers').selectAll().orderBy('name').execute();
  const keys = await db.selectFrom('upstream_keys').selectAll().orderBy('provider').orderBy('created_at').orderBy('id').execute();
  const routes = await db.selectFrom('upstream_routes').selectAll().orderBy('model_id').execute();
  const models = await db.selectFrom('model_settings').selectAll().orderBy('model_id').execute();
  return { providers, keys, routes, models };
}

/**
 * "One snapshot" without choosing the isolation: a caller's transaction on PostgreSQL is READ
 * COMMITTED (every statement sees what committed before it, and the level cannot be raised once the
 * transaction has run a statement), and so are statements outside one. Every change bumps the revision
 * in its own transaction, so an unchanged revision around the reads proves no change committed between
 * them. The revision is read first so that, when the attempts run out, the revision handed out is never
 * newer than the rows (which would hide a change from the poll for good). Inside a SQLite transaction
 * no other writer gets in, and the first attempt holds.
 */
async function loadConsistent(db: Executor): Promise<LiveUpstreamRows> {
  let revision = await readRevision(db);
  for (let attempt = 1; ; attempt++) {
    const rows = await readRows(db);
    const after = await readRevision(db);
    if (after === revision || attempt >= LOAD_ATTEMPTS) return { ...rows, revision };
    revision = after;
  }
}

function changed(result: { numUpdatedRows: bigint } | { numDeletedRows: bigint }): boolean {
  return ('numUpdatedRows' in result ? result.numUpdatedRows : result.numDeletedRows) > 0n;
}

/** The insert of a setting that must be absent: false, not an error, when it is there (or lands there first). */
function inserted(result: { numInsertedOrUpdatedRows?: bigint }): boolean {
  return (result.numInsertedOrUpdatedRows ?? 0n) > 0n;
}

export const kyselyUpstreamSettingsStore: UpstreamSettingsStore = {
  loadAll: (tx) => loadConsistent(executorOf(tx)),

  revision: (tx) => readRevision(executorOf(tx)),

  async bumpRevision(tx) {
    // One statement, so concurrent changes queue on the row's lock and each gets its own number.
    const row = await executorOf(tx)
      .updateTable('upstream_settings_revision')
      .set((eb) => ({ revision: eb('revision', '+', 1) }))
      .where('id', '=', REVISION_ID)
      .returning('revision')
      .executeTakeFirstOrThrow();
    return Number(row.revision);
  },

  provider: (tx, name) => executorOf(tx).selectFrom('upstream_providers').selectAll().where('name', '=', name).executeTakeFirst(),

  async putProvider(tx, row, expectedVersion) {
    const db = executorOf(tx);
    if (expectedVersion === undefined) {
      return inserted(await db.insertInto('upstream_providers').values({ ...row, version: 1 }).onConflict((oc) => oc.column('name').doNothing()).executeTakeFirst());
    }
    const result = await db
      .updateTable('upstream_providers')
      .set({
        type: row.type,
        base_url: row.base_url,
        timeout_ms: row.timeout_ms,
        concurrency: row.concurrency,
        options_json: row.options_json,
        enabled: row.enabled,
        updated_at: row.updated_at,
        updated_by: row.updated_by,
        version: expectedVersion + 1,
      })
      .where('name', '=', row.name)
      .where('version', '=', expectedVersion)
      .executeTakeFirst();
    return changed(result);
  },

  async deleteProvider(tx, name, expectedVersion) {
    const db = executorOf(tx);
    let query = db.deleteFrom('upstream_providers').where('name', '=', name);
    if (expectedVersion !== undefined) query = query.where('version', '=', expectedVersion);
    // The keys' foreign key cascades; this delete keeps the port's promise on a SQLite connection
    // opened without `foreign_keys` too. After the guarded delete, so a refused one takes nothing.
    if (!changed(await query.executeTakeFirst())) return false;
    await db.deleteFrom('upstream_keys').where('provider', '=', name).execute();
    return true;
  },

  keys: (tx, provider) => executorOf(tx).selectFrom('upstream_keys').selectAll().where('provider', '=', provider).orderBy('created_at').orderBy('id').execute(),

  async insertKey(tx, row) {
    await executorOf(tx).insertInto('upstream_keys').values(row).execute();
  },

  async updateKey(tx, provider, id, change) {
    const db = executorOf(tx);
    // Kysely drops undefined values; with nothing left there is no UPDATE to write, only the key's existence to tell.
    if (Object.values(change).every((value) => value === undefined)) {
      return (await db.selectFrom('upstream_keys').select('id').where('provider', '=', provider).where('id', '=', id).executeTakeFirst()) !== undefined;
    }
    const result = await db.updateTable('upstream_keys').set(change).where('provider', '=', provider).where('id', '=', id).executeTakeFirst();
    return changed(result);
  },

  async deleteKey(tx, provider, id) {
    return changed(await executorOf(tx).deleteFrom('upstream_keys').where('provider', '=', provider).where('id', '=', id).executeTakeFirst());
  },

  route: (tx, modelId) => executorOf(tx).selectFrom('upstream_routes').selectAll().where('model_id', '=', modelId).executeTakeFirst(),

  async putRoute(tx, row, expectedVersion) {
    const db = executorOf(tx);
    if (expectedVersion === undefined) {
      return inserted(await db.insertInto('upstream_routes').values({ ...row, version: 1 }).onConflict((oc) => oc.column('model_id').doNothing()).executeTakeFirst());
    }
    const result = await db
      .updateTable('upstream_routes')
      .set({ entries_json: row.entries_json, updated_at: row.updated_at, updated_by: row.updated_by, version: expectedVersion + 1 })
      .where('model_id', '=', row.model_id)
      .where('version', '=', expectedVersion)
      .executeTakeFirst();
    return changed(result);
  },

  async deleteRoute(tx, modelId, expectedVersion) {
    let query = executorOf(tx).deleteFrom('upstream_routes').where('model_id', '=', modelId);
    if (expectedVersion !== undefined) query = query.where('version', '=', expectedVersion);
    return changed(await query.executeTakeFirst());
  },

  modelSetting: (tx, modelId) => executorOf(tx).selectFrom('model_settings').selectAll().where('model_id', '=', modelId).executeTakeFirst(),

  async putModelSetting(tx, row, expectedVersion) {
    const db = executorOf(tx);
    if (expectedVersion === undefined) {
      return inserted(await db.insertInto('model_settings').values({ ...row, version: 1 }).onConflict((oc) => oc.column('model_id').doNothing()).executeTakeFirst());
    }
    const result = await db
      .updateTable('model_settings')
      .set({ override_json: row.override_json, updated_at: row.updated_at, updated_by: row.updated_by, version: expectedVersion + 1 })
      .where('model_id', '=', row.model_id)
      .where('version', '=', expectedVersion)
      .executeTakeFirst();
    return changed(result);
  },

  async deleteModelSetting(tx, modelId, expectedVersion) {
    let query = executorOf(tx).deleteFrom('model_settings').where('model_id', '=', modelId);
    if (expectedVersion !== undefined) query = query.where('version', '=', expectedVersion);
    return changed(await query.executeTakeFirst());
  },

  async appendAudit(tx, row: UpstreamAuditRow) {
    await executorOf(tx).insertInto('upstream_audit').values(row).execute();
  },

  async auditPage(tx, limit, before) {
    const db = executorOf(tx);
    let query = db.selectFrom('upstream_audit').selectAll().orderBy('at', 'desc').orderBy('id', 'desc').limit(limit);
    if (before !== undefined) {
      // The cursor is an id, and ids are the callers' (not ordered by `at`): page after its (at, id).
      const cursor = await db.selectFrom('upstream_audit').select('at').where('id', '=', before).executeTakeFirst();
      // A cursor that names no row (pruned, or made up) ends the listing rather than starting it over.
      if (!cursor) return [];
      const at = cursor.at;
      query = query.where((eb) => eb.or([eb('at', '<', at), eb.and([eb('at', '=', at), eb('id', '<', before)])]));
    }
    return query.execute();
  },
};
