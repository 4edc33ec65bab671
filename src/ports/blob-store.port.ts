import type { Readable } from 'node:stream';

/** Inclusive byte offsets of a part of a blob (HTTP Range semantics), already resolved against its size. */
export interface ByteRange {
  start: number;
  end: number;
}

export interface BlobInfo {
  contentType: string;
  /** Size of the whole blob. */
  bytes: number;
  /** When it was written (ms since the epoch), when the store knows. */
  lastModified?: number;
}

export interface StoredBlob extends BlobInfo {
  /** The whole blob, or only `range` when one was asked for. */
  body: Readable;
  /** Present when the body is a part of the blob. */
  range?: ByteRange;
}

/**
 * Where generated files live (decision 8): a local directory served by the gateway (embedded) or an
 * S3-compatible bucket (scale-out). Keys are unguessable (`<random>/<name>`, see
 * adapters/blob/blob-keys.ts); the URL of a key is public and needs no credentials.
 */
export interface BlobStore {
  /** Writes the whole blob; a reader sees the old blob or the new one, never a part. Overwrites. */
  put(key: string, data: Buffer, contentType: string): Promise<void>;
  /**
   * Undefined when the key does not exist (or was deleted). With `range` (inside the blob: check it
   * against `stat` first), the body holds only those bytes.
   */
  get(key: string, range?: ByteRange): Promise<StoredBlob | undefined>;
  /** Size and type without the body; undefined when the key does not exist. */
  stat(key: string): Promise<BlobInfo | undefined>;
  /** Idempotent: deleting a missing key succeeds. */
  delete(key: string): Promise<void>;
  /** The public URL clients download the file from. */
  publicUrl(key: string): string;
  /** For /readyz. */
  check(): Promise<void>;
}
