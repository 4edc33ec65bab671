/**
 * POST /agent/projects/{id}/assets/import (SPEC endpoint table, issue 12): a project asset is a copy
 * of an artifact in paid storage — a separate object, so deleting the source (its conversation, or the
 * 3 days running out) keeps it. It is a storage operation like retain (202, polled, made once per
 * Idempotency-Key, quota taken by the guarded update); the asset row is written in the transaction
 * that records the file, with the file's id, so the two appear and disappear together.
 */
import { echo } from '../../domain/echo.ts';
import { AppError, invalidInput } from '../../domain/errors.ts';
import type { StorageStore } from '../../ports/storage-store.port.ts';
import type { UnitOfWork } from '../../ports/unit-of-work.port.ts';
import { type AcceptedOperation, parseRetainSource, type StorageFilesService, type StorageOwner } from './storage-files.service.ts';
import type { StorageSource } from './storage-sources.ts';
import { parseIdempotencyKey } from './storage-subscriptions.service.ts';

/** What an asset is for in the brand (docs/decisions.md "Project assets"). */
export const ASSET_ROLES = ['logo', 'product', 'character', 'style', 'background', 'reference', 'other'] as const;

export class ProjectAssetImport {
  readonly #store: StorageStore;
  readonly #uow: UnitOfWork;
  readonly #files: StorageFilesService;

  constructor(deps: { store: StorageStore; uow: UnitOfWork; files: StorageFilesService }) {
    this.#store = deps.store;
    this.#uow = deps.uow;
    this.#files = deps.files;
    const store = deps.store;
    deps.files.onImported(async (tx, operation, file) => {
      if (operation.project_id === null) return;
      await store.recordProjectAsset(tx, {
        id: file.id,
        project_id: operation.project_id,
        user_id: operation.user_id,
        role: operation.asset_role ?? 'other',
        name: file.name,
        mime: file.mime,
        size_bytes: file.size_bytes,
        blob_key: file.blob_key,
        source_artifact_id: operation.source_type === 'artifact' ? operation.source_id : null,
        created_at: file.created_at,
        deleted_at: null,
      });
    });
  }

  async import(owner: StorageOwner, projectId: string, body: unknown, idempotencyKeyHeader: unknown): Promise<AcceptedOperation> {
    const key = parseIdempotencyKey(idempotencyKeyHeader, true) as string;
    const { source, role } = parseImport(body);
    if (!(await this.#store.findProject(this.#uow.direct, owner, projectId))) throw new AppError('not_found', `project ${echo(projectId)} not found`);
    return this.#files.accept(owner, { type: 'import', source, projectId, role }, `asset_import:${owner.userId}:${projectId}`, key);
  }
}

const SOURCE_FIELDS = ['artifactId', 'generationId', 'uploadId'] as const;

/** `{artifactId} | {generationId, outputIndex?} | {uploadId}`, and a role. */
function parseImport(body: unknown): { source: StorageSource; role: string } {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw invalidInput('the body must be {artifactId | generationId, outputIndex? | uploadId, role}', 'body');
  const { role, uploadId, ...rest } = body as Record<string, unknown>;
  if (typeof role !== 'string' || !(ASSET_ROLES as readonly string[]).includes(role)) throw invalidInput(`role must be one of ${ASSET_ROLES.join(', ')}`, 'role');
  const given = SOURCE_FIELDS.filter((f) => (body as Record<string, unknown>)[f] !== undefined);
  if (given.length !== 1) throw invalidInput(`give exactly one source: ${SOURCE_FIELDS.join(', ')}${given.length ? ` (got ${given.join(', ')})` : ''}`, given[1] ?? 'artifactId');
  if (uploadId === undefined) return { source: parseRetainSource(rest), role };
  for (const name of Object.keys(rest)) throw invalidInput(`${echo(name)} does not go with uploadId`, name);
  if (typeof uploadId !== 'string' || uploadId.length === 0 || uploadId.length > 100) throw invalidInput('uploadId must be an upload id (att_…)', 'uploadId');
  return { source: { type: 'upload', id: uploadId }, role };
}
