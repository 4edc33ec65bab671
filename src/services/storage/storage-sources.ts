/**
 * What can be copied into paid storage: a generation's stored file (while its 3 days last), an agent
 * artifact of the caller's storefront, or (asset import) a completed playground upload. Ownership is
 * checked here; the bytes' size and type come from what we stored, not from the caller. A source that
 * names nothing of the caller's is `source_not_found`, distinct from having no plan.
 */
import { echo } from '../../domain/echo.ts';
import { AppError } from '../../domain/errors.ts';
import type { BlobStore } from '../../ports/blob-store.port.ts';
import type { StorageStore } from '../../ports/storage-store.port.ts';
import type { StoreTransaction } from '../../ports/store-transaction.port.ts';
import { PLAYGROUND_SCOPE } from '../agent/attachments/attachments.service.ts';

export type StorageSource = { type: 'generation'; id: string; outputIndex: number } | { type: 'artifact' | 'upload'; id: string };

export interface ResolvedSource {
  blobKey: string;
  contentType: string;
  bytes: number;
  /** A file name for listings and downloads: `<source id>-<index>.<extension>`. */
  name: string;
  extension: string;
}

export async function resolveSource(store: StorageStore, tx: StoreTransaction, blobs: BlobStore, owner: { userId: string; storefront: string }, source: StorageSource, now: number): Promise<ResolvedSource> {
  if (source.type === 'generation') {
    const row = await store.findGenerationFile(tx, owner.userId, source.id, source.outputIndex);
    if (!row || row.deleted_at !== null || row.expires_at <= now) {
      throw new AppError('source_not_found', `generation ${echo(source.id)} has no available file at outputIndex ${source.outputIndex} (not yours, or generated files are kept 3 days)`, { param: 'generationId' });
    }
    const extension = extensionOf(row.blob_key);
    return { blobKey: row.blob_key, contentType: row.content_type, bytes: row.bytes, name: `${source.id}-${source.outputIndex}.${extension}`, extension };
  }
  if (source.type === 'upload') {
    const upload = await store.findUpload(tx, owner, PLAYGROUND_SCOPE, source.id);
    if (upload?.status !== 'completed' || (upload.expires_at !== null && upload.expires_at <= now)) {
      throw new AppError('source_not_found', `upload ${echo(source.id)} is not available (not yours, not completed, or expired)`, { param: 'uploadId' });
    }
    const extension = extensionOf(upload.blob_key);
    return { blobKey: upload.blob_key, contentType: upload.mime, bytes: upload.size_bytes, name: `${upload.id}.${extension}`, extension };
  }
  const artifact = await store.findArtifact(tx, owner, source.id);
  const gone = () => new AppError('source_not_found', `artifact ${echo(source.id)} is not available (not yours, or its file expired)`, { param: 'artifactId' });
  if (!artifact || (artifact.expires_at !== null && Number(artifact.expires_at) <= now)) throw gone();
  const info = await blobs.stat(artifact.blob_key);
  if (!info) throw gone();
  const extension = extensionOf(artifact.blob_key);
  return { blobKey: artifact.blob_key, contentType: artifact.content_type, bytes: info.bytes, name: `${artifact.id}.${extension}`, extension };
}

function extensionOf(key: string): string {
  const dot = key.lastIndexOf('.');
  const extension = dot > key.lastIndexOf('/') ? key.slice(dot + 1).toLowerCase() : '';
  return /^[a-z0-9]{1,10}$/.test(extension) ? extension : 'bin';
}
