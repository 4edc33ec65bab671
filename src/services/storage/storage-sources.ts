/**
 * What can be copied into paid storage: a generation's stored file (while its 3 days last) or an
 * agent artifact of the caller's storefront. Ownership is checked here; the bytes' size and type come
 * from what we stored, not from the caller.
 */
import { findOwnedArtifact } from '../../adapters/db/repositories/agent/artifacts.repository.ts';
import type { Executor } from '../../adapters/db/schema.ts';
import { findOwnedGenerationFile } from '../../adapters/db/repositories/storage.repository.ts';
import { AppError } from '../../domain/errors.ts';
import type { BlobStore } from '../../ports/blob-store.port.ts';

export type StorageSource = { type: 'generation'; id: string; outputIndex: number } | { type: 'artifact'; id: string };

export interface ResolvedSource {
  blobKey: string;
  contentType: string;
  bytes: number;
  /** A file name for listings and downloads: `<source id>-<index>.<extension>`. */
  name: string;
  extension: string;
}

export async function resolveSource(db: Executor, blobs: BlobStore, owner: { userId: string; storefront: string }, source: StorageSource, now: number): Promise<ResolvedSource> {
  if (source.type === 'generation') {
    const row = await findOwnedGenerationFile(db, owner.userId, source.id, source.outputIndex);
    if (!row || row.deleted_at !== null || row.expires_at <= now) {
      throw new AppError('not_found', `generation ${source.id} has no available file at outputIndex ${source.outputIndex} (generated files are kept 3 days)`, { param: 'generationId' });
    }
    const extension = extensionOf(row.blob_key);
    return { blobKey: row.blob_key, contentType: row.content_type, bytes: row.bytes, name: `${source.id}-${source.outputIndex}.${extension}`, extension };
  }
  const artifact = await findOwnedArtifact(db, owner, source.id);
  const gone = () => new AppError('not_found', `artifact ${source.id} is not available (not yours, or its file expired)`, { param: 'artifactId' });
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
