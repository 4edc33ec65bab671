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

/** A streamed upload that was shorter or longer than announced. */
export class BlobSizeError extends Error {
  readonly expected: number;
  readonly received: number;

  constructor(expected: number, received: number) {
    super(received > expected ? `more than the announced ${expected} bytes` : `${received} bytes where ${expected} were announced`);
    this.name = 'BlobSizeError';
    this.expected = expected;
    this.received = received;
  }
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
   * Writes a blob from a stream of exactly `bytes` bytes without holding it in memory; a stream that
   * ends shorter or runs longer fails with BlobSizeError and leaves no blob (nor a part of one).
   */
  putStream(key: string, body: Readable, contentType: string, bytes: number): Promise<void>;
  /**
   * A URL that lets a client without credentials PUT exactly this blob (its type and length signed),
   * until `expiresInSeconds`; undefined when the store cannot sign one (the local directory: the
   * gateway receives the upload itself).
   */
  presignPut(key: string, contentType: string, bytes: number, expiresInSeconds: number): Promise<string | undefined>;
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
