/**
 * POST /agent/projects/{id}/assets/import (SPEC endpoint table, issue 12): a project asset is a copy
 * of an artifact in paid storage — a separate object, so deleting the source (its conversation, or the
 * 3 days running out) keeps it. It is a storage operation like retain (202, polled, made once per
 * Idempotency-Key, quota taken by the guarded update); the asset row is written in the transaction
 * that records the file, with the file's id, so the two appear and disappear together.
 */
import type { Kysely } from 'kysely';
import { insertProjectAsset } from '../../adapters/db/repositories/agent/project-assets.repository.ts';
import { findProject } from '../../adapters/db/repositories/agent/projects.repository.ts';
import type { Schema } from '../../adapters/db/schema.ts';
import { echo } from '../../domain/echo.ts';
import { AppError, invalidInput } from '../../domain/errors.ts';
import type { AcceptedOperation, StorageFilesService, StorageOwner } from './storage-files.service.ts';
import { parseIdempotencyKey } from './storage-subscriptions.service.ts';

/** What an asset is for in the brand (docs/decisions.md "Project assets"). */
export const ASSET_ROLES = ['logo', 'product', 'character', 'style', 'background', 'reference', 'other'] as const;

export class ProjectAssetImport {
  readonly #db: Kysely<Schema>;
  readonly #files: StorageFilesService;

  constructor(deps: { db: Kysely<Schema>; files: StorageFilesService }) {
    this.#db = deps.db;
    this.#files = deps.files;
    deps.files.onImported(async (tx, operation, file) => {
      if (operation.project_id === null) return;
      await insertProjectAsset(tx, {
        id: file.id,
        project_id: operation.project_id,
        user_id: operation.user_id,
        role: operation.asset_role ?? 'other',
        name: file.name,
        mime: file.mime,
        size_bytes: file.size_bytes,
        blob_key: file.blob_key,
        source_artifact_id: operation.source_id,
        created_at: file.created_at,
        deleted_at: null,
      });
    });
  }

  async import(owner: StorageOwner, projectId: string, body: unknown, idempotencyKeyHeader: unknown): Promise<AcceptedOperation> {
    const key = parseIdempotencyKey(idempotencyKeyHeader, true) as string;
    if (body === null || typeof body !== 'object' || Array.isArray(body)) throw invalidInput('the body must be {artifactId, role}', 'body');
    const fields = body as Record<string, unknown>;
    for (const name of Object.keys(fields)) if (name !== 'artifactId' && name !== 'role') throw invalidInput(`unknown field ${echo(name)}; allowed: artifactId, role`, name);
    if (typeof fields.artifactId !== 'string' || fields.artifactId.length === 0 || fields.artifactId.length > 100) throw invalidInput('artifactId is required: an artifact of yours', 'artifactId');
    const role = fields.role;
    if (typeof role !== 'string' || !(ASSET_ROLES as readonly string[]).includes(role)) throw invalidInput(`role must be one of ${ASSET_ROLES.join(', ')}`, 'role');
    if (!(await findProject(this.#db, owner, projectId))) throw new AppError('not_found', `project ${echo(projectId)} not found`);
    return this.#files.accept(owner, { type: 'import', source: { type: 'artifact', id: fields.artifactId }, projectId, role }, `asset_import:${owner.userId}:${projectId}`, key);
  }
}
