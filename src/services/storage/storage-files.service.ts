/**
 * Files in paid storage (SPEC rule 12, the retain and files endpoints): a copy is accepted as an
 * operation (202) and made by a durable job, so a killed worker's copy is finished by another; the
 * operation makes at most one file (unique per operation, its blob key derived from the operation),
 * and quota is taken in the transaction that records the file, by a guarded update that never lets
 * concurrent copies pass it. Deleting a file frees its quota at once; its bytes go by the purge.
 */
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { blobKeyFor } from '../../adapters/blob/blob-keys.ts';
import { requestHash } from '../../domain/canonical-json.ts';
import { echo } from '../../domain/echo.ts';
import { AppError, invalidInput } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import type { BlobStore } from '../../ports/blob-store.port.ts';
import type { FileCursor, StorageFileRow, StorageOperationRow, StorageSourceType, StorageStore } from '../../ports/storage-store.port.ts';
import type { StoreTransaction } from '../../ports/store-transaction.port.ts';
import type { UnitOfWork } from '../../ports/unit-of-work.port.ts';
import type { WorkQueue } from '../../ports/work-queue.port.ts';
import type { JobOutcome } from '../../ports/work-queue.port.ts';
import { JOB_QUEUES, newJob } from '../../domain/jobs/job-catalog.ts';
import type { FaultPoints } from '../../ports/fault-points.port.ts';
import { parseIdempotencyKey } from './storage-subscriptions.service.ts';
import { resolveSource, type StorageSource } from './storage-sources.ts';

const DEFAULT_PAGE = 50;
const MAX_PAGE = 200;

export interface StorageOwner {
  userId: string;
  storefront: string;
}

export interface StorageFileView {
  fileId: string;
  name: string;
  mime: string;
  sizeBytes: number;
  /** A public object URL (rule 12): anyone holding it can read the file until it is deleted. */
  url: string;
  kind: 'retained' | 'project_asset';
  projectId: string | null;
  source: { type: StorageSourceType; id: string; outputIndex: number | null };
  createdAt: string;
}

export interface StorageOperationView {
  operationId: string;
  type: 'retain' | 'import';
  status: 'pending' | 'completed' | 'failed';
  source: { type: StorageSourceType; id: string; outputIndex: number | null };
  projectId: string | null;
  role: string | null;
  file: StorageFileView | null;
  error: { code: string; message: string } | null;
  createdAt: string;
  finishedAt: string | null;
}

export interface AcceptedOperation {
  operationId: string;
  status: 'pending' | 'completed' | 'failed';
  type: 'retain' | 'import';
}

export interface FilePage {
  items: StorageFileView[];
  nextCursor: string | null;
}

/** What an import adds besides the file (the project asset row), in the file's transaction. */
export type CopyCompletion = (tx: StoreTransaction, operation: StorageOperationRow, file: StorageFileRow) => Promise<void>;

export class StorageFilesService {
  readonly #store: StorageStore;
  readonly #uow: UnitOfWork;
  readonly #blobs: BlobStore;
  readonly #queue: WorkQueue;
  readonly #now: () => number;
  readonly #logger: Logger;
  readonly #faults: FaultPoints | undefined;
  #onImported: CopyCompletion | undefined;

  constructor(deps: { store: StorageStore; uow: UnitOfWork; blobs: BlobStore; queue: WorkQueue; now: () => number; logger: Logger; faults?: FaultPoints }) {
    this.#faults = deps.faults;
    this.#store = deps.store;
    this.#uow = deps.uow;
    this.#blobs = deps.blobs;
    this.#queue = deps.queue;
    this.#now = deps.now;
    this.#logger = deps.logger;
  }

  /** Set by the projects module: records the asset of a completed import. */
  onImported(completion: CopyCompletion): void {
    this.#onImported = completion;
  }

  /** POST /agent/storage/retain: `{generationId, outputIndex?}` or `{artifactId}`. */
  async retain(owner: StorageOwner, body: unknown, idempotencyKeyHeader: unknown): Promise<AcceptedOperation> {
    const source = parseRetainSource(body);
    const key = parseIdempotencyKey(idempotencyKeyHeader, false) ?? `source:${source.type}:${source.id}:${source.type === 'generation' ? source.outputIndex : ''}`;
    return this.accept(owner, { type: 'retain', source, projectId: null, role: null }, `storage_retain:${owner.userId}`, key);
  }

  /**
   * Accepts a copy: checks the plan, the source and the quota now (a clear error at once), then
   * records the operation and its job in one transaction under the idempotency key.
   */
  async accept(
    owner: StorageOwner,
    request: { type: 'retain' | 'import'; source: StorageSource; projectId: string | null; role: string | null },
    scope: string,
    key: string,
  ): Promise<AcceptedOperation> {
    // The parsed request, not the raw body: {generationId} and {generationId, outputIndex: 0} are one request.
    const hash = requestHash(request);
    const earlier = await this.#store.findIdempotentResponse<AcceptedOperation>(this.#uow.direct, scope, key, hash);
    if (earlier) return earlier;
    const now = this.#now();
    // The source first: an id that names nothing of yours is source_not_found, whether or not you have a plan.
    const resolved = await resolveSource(this.#store, this.#uow.direct, this.#blobs, owner, request.source, now);
    await this.#requireRoom(owner.userId, resolved.bytes);
    const accepted = await this.#uow.transaction(async (tx) => {
      const replayed = await this.#store.reserveIdempotencyKey<AcceptedOperation>(tx, scope, key, hash, now);
      if (replayed) return replayed;
      const id = newId('sop', now);
      await this.#store.recordOperation(tx, {
        id,
        user_id: owner.userId,
        storefront: owner.storefront,
        operation_type: request.type,
        status: 'pending',
        source_type: request.source.type,
        source_id: request.source.id,
        output_index: request.source.type === 'generation' ? request.source.outputIndex : null,
        project_id: request.projectId,
        asset_role: request.role,
        copy_seed: randomBytes(24).toString('base64url'),
        file_id: null,
        error_code: null,
        error_message: null,
        created_at: now,
        finished_at: null,
      });
      // The queue runs on the system clock, not the calendar.
      await this.#queue.enqueue(tx, newJob('storage_copy', { operationId: id }, Date.now()));
      const response: AcceptedOperation = { operationId: id, status: 'pending', type: request.type };
      await this.#store.storeIdempotentResponse(tx, scope, key, response);
      return response;
    });
    await this.#queue.wake(JOB_QUEUES.maintenance);
    return accepted;
  }

  async #requireRoom(userId: string, bytes: number): Promise<void> {
    const subscription = await this.#store.findSubscription(this.#uow.direct, userId);
    if (!subscription || subscription.status === 'lapsed') {
      throw new AppError('storage_plan_required', 'saving files needs an active storage plan: see GET /api/v1/agent/storage/plans, then quote and subscribe');
    }
    if (subscription.status === 'grace') {
      const until = new Date(subscription.grace_ends_at ?? subscription.period_end).toISOString();
      throw new AppError('storage_plan_required', `your storage plan ended unpaid; until ${until} your files can be read and exported but no file can be added: subscribe again to add files`);
    }
    if (subscription.used_bytes + bytes > subscription.quota_bytes) {
      throw new AppError('storage_quota_exceeded', `this file (${bytes} bytes) does not fit: ${subscription.used_bytes} of ${subscription.quota_bytes} bytes are used; delete files or upgrade the plan`);
    }
  }

  async operation(owner: StorageOwner, id: string): Promise<StorageOperationView> {
    const row = await this.#store.findOperation(this.#uow.direct, id);
    if (!row || row.user_id !== owner.userId) throw new AppError('not_found', `storage operation ${echo(id)} not found`);
    const file = row.file_id ? await this.#store.findFile(this.#uow.direct, owner.userId, row.file_id) : undefined;
    return {
      operationId: row.id,
      type: row.operation_type,
      status: row.status,
      source: { type: row.source_type, id: row.source_id, outputIndex: row.output_index },
      projectId: row.project_id,
      role: row.asset_role,
      file: file && file.status === 'available' ? this.present(file) : null,
      error: row.error_code ? { code: row.error_code, message: row.error_message ?? '' } : null,
      createdAt: new Date(row.created_at).toISOString(),
      finishedAt: row.finished_at === null ? null : new Date(row.finished_at).toISOString(),
    };
  }

  async list(owner: StorageOwner, query: { cursor?: string; limit?: string; projectId?: string }): Promise<FilePage> {
    const limit = parseLimit(query.limit);
    const after = query.cursor ? decodeCursor(query.cursor) : undefined;
    const rows = await this.#store.listFiles(this.#uow.direct, owner.userId, limit + 1, after, query.projectId);
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return { items: page.map((row) => this.present(row)), nextCursor: rows.length > limit && last ? encodeCursor({ createdAt: last.created_at, id: last.id }) : null };
  }

  async get(owner: StorageOwner, id: string): Promise<StorageFileView> {
    const row = await this.#store.findFile(this.#uow.direct, owner.userId, id);
    if (row?.status !== 'available') throw new AppError('not_found', `file ${echo(id)} not found`);
    return this.present(row);
  }

  /** Frees the file's quota at once (no charge), then removes its bytes. */
  async delete(owner: StorageOwner, id: string): Promise<{ fileId: string; deleted: true; usedBytes: number }> {
    const row = await this.#store.findFile(this.#uow.direct, owner.userId, id);
    if (row?.status !== 'available') throw new AppError('not_found', `file ${echo(id)} not found`);
    const now = this.#now();
    await this.#uow.transaction(async (tx) => {
      if (await this.#store.markFileDeleted(tx, row.id, now)) await this.#store.releaseQuota(tx, owner.userId, row.size_bytes);
    });
    try {
      await this.#blobs.delete(row.blob_key);
      await this.#store.markFilePurged(this.#uow.direct, row.id, this.#now());
    } catch (error) {
      this.#logger.warn({ err: error, fileId: row.id }, 'removing a deleted file failed; the purge will retry');
    }
    const subscription = await this.#store.findSubscription(this.#uow.direct, owner.userId);
    return { fileId: row.id, deleted: true, usedBytes: subscription?.used_bytes ?? 0 };
  }

  /** Ends a pending operation `failed` (compare-and-set on `pending`): its copy kept failing inside the gateway. */
  async abandon(operationId: string, now: number): Promise<void> {
    await this.#store.finishOperation(this.#uow.direct, operationId, { status: 'failed', errorCode: 'internal_error', errorMessage: 'the copy failed repeatedly inside the gateway; try again later' }, now);
  }

  present(row: StorageFileRow): StorageFileView {
    return {
      fileId: row.id,
      name: row.name,
      mime: row.mime,
      sizeBytes: row.size_bytes,
      url: this.#blobs.publicUrl(row.blob_key),
      kind: row.file_kind,
      projectId: row.project_id,
      source: { type: row.source_type, id: row.source_id, outputIndex: row.output_index },
      createdAt: new Date(row.created_at).toISOString(),
    };
  }

  /**
   * The copy job: safe to run again after a crash at any point. The object's key is derived from the
   * operation, so a repeated copy overwrites its own object; the file row is unique per operation.
   */
  async copy(operationId: string): Promise<void> {
    const op = await this.#store.findOperation(this.#uow.direct, operationId);
    if (op?.status !== 'pending') return;
    const owner = { userId: op.user_id, storefront: op.storefront };
    const source: StorageSource = op.source_type === 'generation' ? { type: 'generation', id: op.source_id, outputIndex: op.output_index ?? 0 } : { type: op.source_type, id: op.source_id };
    const fail = async (code: string, message: string) => {
      await this.#store.finishOperation(this.#uow.direct, op.id, { status: 'failed', errorCode: code, errorMessage: message }, this.#now());
    };
    let resolved: Awaited<ReturnType<typeof resolveSource>>;
    try {
      resolved = await resolveSource(this.#store, this.#uow.direct, this.#blobs, owner, source, this.#now());
    } catch (error) {
      if (error instanceof AppError) return fail('source_unavailable', error.message);
      throw error;
    }
    const key = blobKeyFor(op.copy_seed, op.id, 0, resolved.extension);
    const blob = await this.#blobs.get(resolved.blobKey);
    if (!blob) return fail('source_unavailable', 'the source file is gone');
    await this.#blobs.putStream(key, blob.body, resolved.contentType, blob.bytes);
    this.#faults?.at('storage.after_copy');
    const now = this.#now();
    let outcome: 'completed' | 'raced' | 'no_room';
    try {
      outcome = await this.#uow.transaction(async (tx) => {
      const file: StorageFileRow = {
        id: newId('sf', now),
        user_id: op.user_id,
        operation_id: op.id,
        file_kind: op.operation_type === 'import' ? 'project_asset' : 'retained',
        project_id: op.project_id,
        source_type: op.source_type,
        source_id: op.source_id,
        output_index: op.output_index,
        name: resolved.name,
        mime: resolved.contentType,
        size_bytes: blob.bytes,
        blob_key: key,
        status: 'available',
        created_at: now,
        deleted_at: null,
        purged_at: null,
      };
      if (!(await this.#store.recordFileOnce(tx, file))) return 'raced' as const;
      // Thrown, not returned: the file row written above must roll back with it.
      if (!(await this.#store.reserveQuota(tx, op.user_id, blob.bytes))) throw new NoRoom();
      if (op.operation_type === 'import' && this.#onImported) await this.#onImported(tx, op, file);
      await this.#store.finishOperation(tx, op.id, { status: 'completed', fileId: file.id }, now);
      return 'completed' as const;
      });
    } catch (error) {
      if (!(error instanceof NoRoom)) throw error;
      outcome = 'no_room';
    }
    if (outcome === 'no_room') {
      await this.#blobs.delete(key);
      const subscription = await this.#store.findSubscription(this.#uow.direct, op.user_id);
      if (subscription?.status !== 'active') return fail('storage_plan_required', 'the storage plan is no longer active');
      return fail('storage_quota_exceeded', `the file (${blob.bytes} bytes) did not fit: ${subscription.used_bytes} of ${subscription.quota_bytes} bytes are used`);
    }
  }
}

/** The quota did not have room for a copy: rolls its transaction back. */
class NoRoom extends Error {}

export function createStorageCopyHandler(files: StorageFilesService): (job: { refId: string }) => Promise<JobOutcome> {
  return async (job) => {
    await files.copy(job.refId);
    return { kind: 'done' };
  };
}

/**
 * The give-up hook of `storage_copy` jobs (the poison-job rule, src/domain/jobs/job-catalog.ts): an
 * operation whose copy keeps failing unexpectedly ends `failed` (compare-and-set on `pending`; no
 * quota was taken, nothing was charged for it).
 */
export function createStorageCopyGiveUp(files: StorageFilesService, now: () => number = Date.now): (job: { refId: string }) => Promise<JobOutcome> {
  return async (job) => {
    await files.abandon(job.refId, now());
    return { kind: 'done' };
  };
}

export function parseRetainSource(body: unknown): StorageSource {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw invalidInput('the body must be {generationId, outputIndex} or {artifactId}', 'body');
  const fields = body as Record<string, unknown>;
  for (const key of Object.keys(fields)) if (!['generationId', 'outputIndex', 'artifactId'].includes(key)) throw invalidInput(`unknown field ${echo(key)}; allowed: generationId, outputIndex, artifactId`, key);
  const { generationId, artifactId, outputIndex } = fields;
  if ((generationId === undefined) === (artifactId === undefined)) throw invalidInput('give exactly one of generationId and artifactId', 'generationId');
  if (artifactId !== undefined) {
    if (outputIndex !== undefined) throw invalidInput('outputIndex goes with generationId', 'outputIndex');
    if (typeof artifactId !== 'string' || artifactId.length === 0 || artifactId.length > 100) throw invalidInput('artifactId must be an artifact id', 'artifactId');
    return { type: 'artifact', id: artifactId };
  }
  if (typeof generationId !== 'string' || generationId.length === 0 || generationId.length > 100) throw invalidInput('generationId must be a generation (task) id', 'generationId');
  const index = outputIndex ?? 0;
  if (typeof index !== 'number' || !Number.isSafeInteger(index) || index < 0 || index > 99) throw invalidInput('outputIndex must be a whole number from 0 (the position in files)', 'outputIndex');
  return { type: 'generation', id: generationId, outputIndex: index };
}

function parseLimit(value: string | undefined): number {
  if (value === undefined) return DEFAULT_PAGE;
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 1 || n > MAX_PAGE) throw invalidInput(`limit must be 1-${MAX_PAGE}`, 'limit');
  return n;
}

function encodeCursor(cursor: FileCursor): string {
  return Buffer.from(`${cursor.createdAt}.${cursor.id}`).toString('base64url');
}

function decodeCursor(value: string): FileCursor {
  const text = Buffer.from(value, 'base64url').toString();
  const dot = text.indexOf('.');
  const createdAt = Number(text.slice(0, dot));
  const id = text.slice(dot + 1);
  if (dot < 1 || !Number.isSafeInteger(createdAt) || !/^sf_[0-9a-z]{10,40}$/.test(id)) throw invalidInput('cursor is not one this endpoint returned', 'cursor');
  return { createdAt, id };
}
