/**
 * Files of a brand project. General on purpose: the asset import (storage plans) inserts rows here,
 * the projects API lists and reads them; a removal is a soft delete (the row stays for audits and for
 * runs that referenced it; the bytes follow the storage subscription).
 */
import type { Executor } from '../../schema.ts';
import type { AgentProjectAssetsTable } from '../../tables/agent-projects.tables.ts';

export type ProjectAssetRow = AgentProjectAssetsTable;

export interface ProjectAssetCursor {
  createdAt: number;
  id: string;
}

export async function insertProjectAsset(db: Executor, row: ProjectAssetRow): Promise<void> {
  await db.insertInto('agent_project_assets').values(row).execute();
}

/** A live asset of the project (a deleted one, or one of another project, does not exist). */
export async function findProjectAsset(db: Executor, projectId: string, id: string): Promise<ProjectAssetRow | undefined> {
  return db.selectFrom('agent_project_assets').selectAll().where('id', '=', id).where('project_id', '=', projectId).where('deleted_at', 'is', null).executeTakeFirst();
}

/** One page, newest first; `role` narrows it. */
export async function listProjectAssets(db: Executor, projectId: string, limit: number, after: ProjectAssetCursor | undefined, role?: string): Promise<ProjectAssetRow[]> {
  let query = db.selectFrom('agent_project_assets').selectAll().where('project_id', '=', projectId).where('deleted_at', 'is', null);
  if (role !== undefined) query = query.where('role', '=', role);
  if (after) query = query.where((eb) => eb.or([eb('created_at', '<', after.createdAt), eb.and([eb('created_at', '=', after.createdAt), eb('id', '<', after.id)])]));
  return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}

/** Soft delete; false when it was already gone. */
export async function softDeleteProjectAsset(db: Executor, projectId: string, id: string, now: number): Promise<boolean> {
  const result = await db
    .updateTable('agent_project_assets')
    .set({ deleted_at: now })
    .where('id', '=', id)
    .where('project_id', '=', projectId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}
