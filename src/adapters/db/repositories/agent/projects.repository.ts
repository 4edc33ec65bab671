import type { Executor } from '../../schema.ts';
import type { AgentProjectsTable, AgentProjectVersionsTable } from '../../tables/agent-projects.tables.ts';

export type ProjectRow = AgentProjectsTable;
export type ProjectVersionRow = AgentProjectVersionsTable;

export interface ProjectOwner {
  userId: string;
  storefront: string;
}

export interface ProjectCursor {
  updatedAt: number;
  id: string;
}

/** The project row and its first version, in the caller's transaction. */
export async function insertProject(db: Executor, row: ProjectRow): Promise<void> {
  await db.insertInto('agent_projects').values(row).execute();
  await db.insertInto('agent_project_versions').values({ project_id: row.id, version: row.version, snapshot_json: row.snapshot_json, created_at: row.created_at }).execute();
}

/** A live project of this user on this storefront (another's, or a deleted one, does not exist). */
export async function findProject(db: Executor, owner: ProjectOwner, id: string): Promise<ProjectRow | undefined> {
  return db
    .selectFrom('agent_projects')
    .selectAll()
    .where('id', '=', id)
    .where('user_id', '=', owner.userId)
    .where('storefront', '=', owner.storefront)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}

export async function countProjects(db: Executor, owner: ProjectOwner): Promise<number> {
  const row = await db
    .selectFrom('agent_projects')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('user_id', '=', owner.userId)
    .where('storefront', '=', owner.storefront)
    .where('deleted_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** One page, most recently updated first. */
export async function listProjects(db: Executor, owner: ProjectOwner, limit: number, after: ProjectCursor | undefined): Promise<ProjectRow[]> {
  let query = db
    .selectFrom('agent_projects')
    .selectAll()
    .where('user_id', '=', owner.userId)
    .where('storefront', '=', owner.storefront)
    .where('deleted_at', 'is', null);
  if (after) {
    query = query.where((eb) => eb.or([eb('updated_at', '<', after.updatedAt), eb.and([eb('updated_at', '=', after.updatedAt), eb('id', '<', after.id)])]));
  }
  return query.orderBy('updated_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}

/**
 * Moves the project to `expectedVersion + 1` by compare-and-set and writes that version's row in the
 * same transaction; false when the version was stale (or the project is gone): nothing is written.
 */
export async function updateProject(db: Executor, id: string, expectedVersion: number, name: string, snapshotJson: string, now: number): Promise<boolean> {
  const result = await db
    .updateTable('agent_projects')
    .set({ name, snapshot_json: snapshotJson, version: expectedVersion + 1, updated_at: now })
    .where('id', '=', id)
    .where('version', '=', expectedVersion)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) !== 1) return false;
  await db.insertInto('agent_project_versions').values({ project_id: id, version: expectedVersion + 1, snapshot_json: snapshotJson, created_at: now }).execute();
  return true;
}

export async function markProjectDeleted(db: Executor, id: string, now: number): Promise<boolean> {
  const result = await db.updateTable('agent_projects').set({ deleted_at: now }).where('id', '=', id).where('deleted_at', 'is', null).executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Versions newest first, strictly below `beforeVersion` when given. */
export async function listProjectVersions(db: Executor, projectId: string, limit: number, beforeVersion: number | undefined): Promise<ProjectVersionRow[]> {
  let query = db.selectFrom('agent_project_versions').selectAll().where('project_id', '=', projectId);
  if (beforeVersion !== undefined) query = query.where('version', '<', beforeVersion);
  return query.orderBy('version', 'desc').limit(limit).execute();
}

export async function findProjectVersion(db: Executor, projectId: string, version: number): Promise<ProjectVersionRow | undefined> {
  return db.selectFrom('agent_project_versions').selectAll().where('project_id', '=', projectId).where('version', '=', version).executeTakeFirst();
}
