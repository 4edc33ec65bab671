import { Readable } from 'node:stream';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { S3Config } from '../../config/config.types.ts';
import { DependencyUnavailableError } from '../../domain/errors.ts';
import type { BlobInfo, BlobStore, ByteRange, StoredBlob } from '../../ports/blob-store.port.ts';
import { assertValidBlobKey } from './blob-keys.ts';
import { countBytes } from './count-bytes.ts';

const CUT_UPLOAD_SETTLE_MS = 100;

/**
 * Blobs in an S3-compatible bucket (scale-out mode). Path-style addressing (MinIO, R2, Ceph and the
 * test server all take it) and checksums only where the operation requires them (several
 * S3-compatible servers reject the SDK's default CRC headers on PutObject).
 *
 * URLs: `S3_PUBLIC_URL/<key>` when the bucket (or a CDN in front of it) is public; otherwise the
 * gateway's `/files/<key>`, which streams the object from the bucket.
 */
export class S3BlobStore implements BlobStore {
  private readonly client: S3Client;
  private readonly bucket: string;
  private readonly publicBase: string | undefined;
  private readonly publicBaseUrl: () => string;

  constructor(config: S3Config, publicBaseUrl: () => string) {
    this.client = new S3Client({
      endpoint: config.endpoint,
      region: config.region,
      credentials: { accessKeyId: config.accessKeyId, secretAccessKey: config.secretAccessKey },
      forcePathStyle: true,
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      // A store that does not answer is noticed in seconds (then a request answers 503, a worker waits and retries).
      requestHandler: { connectionTimeout: 3_000 },
    });
    this.bucket = config.bucket;
    this.publicBase = config.publicUrl?.replace(/\/+$/u, '');
    this.publicBaseUrl = publicBaseUrl;
  }

  async put(key: string, data: Buffer, contentType: string): Promise<void> {
    assertValidBlobKey(key);
    // One PutObject is atomic in S3: readers see the old object or the new one.
    try {
      await this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: data, ContentType: contentType, ContentLength: data.length }));
    } catch (error) {
      throw asStoreError(error);
    }
  }

  async putStream(key: string, body: Readable, contentType: string, bytes: number): Promise<void> {
    assertValidBlobKey(key);
    // With ContentLength, S3 stores the object only when exactly that many bytes arrive; the counter
    // fails a longer stream here rather than after the upload.
    const counted = body.pipe(countBytes(bytes));
    body.on('error', (error) => counted.destroy(error));
    // The SDK does not end its request when the body fails: abort it, so the store sees a cut upload
    // (and stores nothing) and this call fails with the stream's error.
    const abort = new AbortController();
    let failure: unknown;
    counted.on('error', (error) => {
      failure = error;
      abort.abort(error);
    });
    try {
      await this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: counted, ContentType: contentType, ContentLength: bytes }), { abortSignal: abort.signal });
    } catch (error) {
      // S3 keeps nothing of a cut upload; some compatible servers keep what arrived, and finish with
      // the cut request after the client has given up: give them a moment, then remove it.
      if (failure !== undefined) {
        await new Promise((resolve) => setTimeout(resolve, CUT_UPLOAD_SETTLE_MS));
        await this.delete(key).catch(() => undefined);
      }
      throw failure ?? asStoreError(error);
    }
  }

  async presignPut(key: string, contentType: string, bytes: number, expiresInSeconds: number): Promise<string> {
    assertValidBlobKey(key);
    const command = new PutObjectCommand({ Bucket: this.bucket, Key: key, ContentType: contentType, ContentLength: bytes });
    // Type and length are signed headers: a PUT of another type or size is refused by the store.
    return getSignedUrl(this.client, command, { expiresIn: expiresInSeconds, signableHeaders: new Set(['content-type', 'content-length']) });
  }

  async get(key: string, range?: ByteRange): Promise<StoredBlob | undefined> {
    assertValidBlobKey(key);
    try {
      const out = await this.client.send(
        new GetObjectCommand({ Bucket: this.bucket, Key: key, ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}) }),
      );
      const body = out.Body;
      if (!(body instanceof Readable)) throw new Error('the S3 client returned a body that is not a Node stream');
      const total = range ? totalFromContentRange(out.ContentRange) : out.ContentLength;
      const info: BlobInfo = {
        contentType: out.ContentType ?? 'application/octet-stream',
        bytes: total ?? 0,
        ...(out.LastModified ? { lastModified: out.LastModified.getTime() } : {}),
      };
      return range ? { ...info, body, range } : { ...info, body };
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw asStoreError(error);
    }
  }

  async stat(key: string): Promise<BlobInfo | undefined> {
    assertValidBlobKey(key);
    try {
      const out = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return {
        contentType: out.ContentType ?? 'application/octet-stream',
        bytes: out.ContentLength ?? 0,
        ...(out.LastModified ? { lastModified: out.LastModified.getTime() } : {}),
      };
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw asStoreError(error);
    }
  }

  async delete(key: string): Promise<void> {
    assertValidBlobKey(key);
    // S3 answers 204 for a key that does not exist, so this is idempotent as it is.
    try {
      await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
    } catch (error) {
      if (!isNotFound(error)) throw asStoreError(error);
    }
  }

  publicUrl(key: string): string {
    assertValidBlobKey(key);
    if (this.publicBase) return `${this.publicBase}/${key}`;
    return `${this.publicBaseUrl().replace(/\/+$/u, '')}/files/${key}`;
  }

  /** HeadBucket: the bucket exists and these credentials may use it. */
  async check(): Promise<void> {
    const command = new HeadBucketCommand({ Bucket: this.bucket });
    // The SDK writes a path-style bucket URL as `/bucket/`; S3 takes `/bucket` as well, and some
    // S3-compatible servers (s3rver, which the tests use) verify the signature only for that form.
    command.middlewareStack.add(
      (next) => async (args) => {
        const request = args.request as { path?: unknown };
        if (typeof request.path === 'string' && /^\/[^/]+\/$/u.test(request.path)) request.path = request.path.slice(0, -1);
        return next(args);
      },
      { step: 'build', name: 'switchboardBucketPathWithoutSlash' },
    );
    try {
      await this.client.send(command);
    } catch (error) {
      throw asStoreError(error);
    }
  }

  /** Closes the client's kept-alive connections. */
  close(): void {
    this.client.destroy();
  }
}

function isNotFound(error: unknown): boolean {
  if (error instanceof S3ServiceException) {
    if (error.name === 'NoSuchBucket') return false;
    return error.name === 'NoSuchKey' || error.name === 'NotFound' || error.$metadata.httpStatusCode === 404;
  }
  return false;
}

/**
 * An error of the store itself (no connection, a time-out, a 5xx or a throttle) as
 * DependencyUnavailableError, answered 503 and waited out by workers; a 4xx stays what it is.
 */
function asStoreError(error: unknown): unknown {
  if (error instanceof S3ServiceException) {
    const status = error.$metadata.httpStatusCode;
    return status === undefined || status >= 500 || status === 429 ? new DependencyUnavailableError('storage', { cause: error }) : error;
  }
  if (!(error instanceof Error)) return error;
  const systemError = typeof (error as { code?: unknown }).code === 'string';
  return systemError || error.name === 'TimeoutError' ? new DependencyUnavailableError('storage', { cause: error }) : error;
}

/** `bytes 0-99/1234` → 1234. */
function totalFromContentRange(header: string | undefined): number | undefined {
  const match = header ? /\/(\d+)\s*$/u.exec(header) : null;
  return match ? Number(match[1]) : undefined;
}
