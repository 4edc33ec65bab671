import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { access, mkdir, open, readFile, rename, rmdir, unlink } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { BlobInfo, BlobStore, ByteRange, StoredBlob } from '../../ports/blob-store.port.ts';
import { DependencyUnavailableError } from '../../domain/errors.ts';
import { isStoreFull } from '../db/db-errors.ts';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../fs/private-files.ts';
import { assertValidBlobKey, contentTypeFromKey } from './blob-keys.ts';
import { countBytes } from './count-bytes.ts';

/** Side file with the content type; `~` is never part of a key, so no key can name it. */
const META_SUFFIX = '~meta.json';
const TEMP_SUFFIX = '~tmp';

interface BlobMeta {
  contentType: string;
}

/**
 * Blobs as files under one directory (embedded mode: `<DATA_DIR>/files`), served by the gateway's
 * `/files/*` route. Every write goes to a temporary file that is flushed and renamed into place, so a
 * reader (or a crash) sees the old file or the new one, never a part. The content type is kept in a
 * small side file written before the blob, so a blob that exists always has its type (and a lost side
 * file falls back to the key's extension). Files are 0600 and directories 0700 (the gateway serves
 * them itself; no other local user needs to read them); a mode given at creation only loses bits to
 * the umask, so no umask makes them wider.
 */
export class LocalBlobStore implements BlobStore {
  private readonly root: string;
  private readonly publicBaseUrl: () => string;

  /** `publicBaseUrl` is a function because the base URL is known only once the server has bound. */
  constructor(dir: string, publicBaseUrl: () => string) {
    this.root = resolve(dir);
    this.publicBaseUrl = publicBaseUrl;
  }

  async put(key: string, data: Buffer, contentType: string): Promise<void> {
    await this.#write(key, data, contentType).catch(asUnavailableWhenFull);
  }

  async #write(key: string, data: Buffer, contentType: string): Promise<void> {
    const path = this.pathOf(key);
    await mkdir(dirname(path), { recursive: true, mode: PRIVATE_DIR_MODE });
    const meta: BlobMeta = { contentType };
    await writeAtomically(`${path}${META_SUFFIX}`, Buffer.from(JSON.stringify(meta)));
    await writeAtomically(path, data);
  }

  async putStream(key: string, body: Readable, contentType: string, bytes: number): Promise<void> {
    await this.#writeStream(key, body, contentType, bytes).catch(asUnavailableWhenFull);
  }

  async #writeStream(key: string, body: Readable, contentType: string, bytes: number): Promise<void> {
    const path = this.pathOf(key);
    await mkdir(dirname(path), { recursive: true, mode: PRIVATE_DIR_MODE });
    await writeAtomically(`${path}${META_SUFFIX}`, Buffer.from(JSON.stringify({ contentType } satisfies BlobMeta)));
    const temp = `${path}${TEMP_SUFFIX}${randomBytes(6).toString('hex')}`;
    const handle = await open(temp, 'wx', PRIVATE_FILE_MODE);
    try {
      await pipeline(body, countBytes(bytes), async (source: AsyncIterable<Buffer>) => {
        for await (const chunk of source) {
          for (let at = 0; at < chunk.length; ) at += (await handle.write(chunk, at, chunk.length - at)).bytesWritten;
        }
      });
      await handle.sync();
    } catch (error) {
      await handle.close();
      await unlinkIfPresent(temp);
      throw error;
    }
    await handle.close();
    await rename(temp, path).catch(async (error: unknown) => {
      await unlinkIfPresent(temp);
      throw error;
    });
  }

  /** The local directory signs nothing: the gateway receives uploads itself. */
  async presignPut(): Promise<string | undefined> {
    return undefined;
  }

  async get(key: string, range?: ByteRange): Promise<StoredBlob | undefined> {
    const path = this.pathOf(key);
    // Open first: a file deleted after this keeps reading to the end (POSIX), so no half-served blob.
    const handle = await open(path, 'r').catch((error: unknown) => {
      if (isMissing(error)) return undefined;
      throw error;
    });
    if (!handle) return undefined;
    try {
      const stats = await handle.stat();
      // A key's directory (its token without the name) is not a blob.
      if (!stats.isFile()) {
        await handle.close();
        return undefined;
      }
      const info: BlobInfo = { contentType: await this.contentTypeOf(key, path), bytes: stats.size, lastModified: Math.floor(stats.mtimeMs) };
      if (range) checkRange(range, stats.size);
      const body = handle.createReadStream(range ? { start: range.start, end: range.end } : {});
      return range ? { ...info, body, range } : { ...info, body };
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  async stat(key: string): Promise<BlobInfo | undefined> {
    const path = this.pathOf(key);
    const handle = await open(path, 'r').catch((error: unknown) => {
      if (isMissing(error)) return undefined;
      throw error;
    });
    if (!handle) return undefined;
    try {
      const stats = await handle.stat();
      if (!stats.isFile()) return undefined;
      return { contentType: await this.contentTypeOf(key, path), bytes: stats.size, lastModified: Math.floor(stats.mtimeMs) };
    } finally {
      await handle.close();
    }
  }

  async delete(key: string): Promise<void> {
    const path = this.pathOf(key);
    await unlinkIfPresent(path);
    await unlinkIfPresent(`${path}${META_SUFFIX}`);
    // Each key has its own random directory: remove the directories it leaves empty, up to the root.
    for (let dir = dirname(path); dir.startsWith(this.root + sep); dir = dirname(dir)) {
      try {
        await rmdir(dir);
      } catch {
        break;
      }
    }
  }

  publicUrl(key: string): string {
    assertValidBlobKey(key);
    return `${this.publicBaseUrl().replace(/\/+$/u, '')}/files/${key}`;
  }

  async check(): Promise<void> {
    await mkdir(this.root, { recursive: true, mode: PRIVATE_DIR_MODE });
    await access(this.root, constants.R_OK | constants.W_OK);
  }

  private pathOf(key: string): string {
    assertValidBlobKey(key);
    const path = join(this.root, ...key.split('/'));
    // The key rules already keep it inside; this is the second lock on the same door.
    if (!path.startsWith(this.root + sep)) throw new Error('blob path outside the files directory');
    return path;
  }

  private async contentTypeOf(key: string, path: string): Promise<string> {
    try {
      const meta = JSON.parse(await readFile(`${path}${META_SUFFIX}`, 'utf8')) as Partial<BlobMeta>;
      if (typeof meta.contentType === 'string' && meta.contentType !== '') return meta.contentType;
    } catch {
      // A missing or damaged side file: fall back to the extension.
    }
    return contentTypeFromKey(key);
  }
}

async function writeAtomically(path: string, data: Buffer): Promise<void> {
  const temp = `${path}${TEMP_SUFFIX}${randomBytes(6).toString('hex')}`;
  const handle = await open(temp, 'wx', PRIVATE_FILE_MODE);
  try {
    await handle.writeFile(data);
    await handle.sync();
  } catch (error) {
    await handle.close();
    await unlinkIfPresent(temp);
    throw error;
  }
  await handle.close();
  try {
    await rename(temp, path);
  } catch (error) {
    await unlinkIfPresent(temp);
    throw error;
  }
}

/**
 * A full disk is an outage of the store, not a fault of the blob: workers wait for it as for an S3
 * outage (a finished result is kept in hand, never failed and refunded), and the HTTP layer answers
 * 507 (it finds the ENOSPC beneath, db-errors.ts isStoreFull).
 */
function asUnavailableWhenFull(error: unknown): never {
  if (isStoreFull(error)) throw new DependencyUnavailableError('storage', { cause: error, retryAfter: 30 });
  throw error;
}

async function unlinkIfPresent(path: string): Promise<void> {
  try {
    await unlink(path);
  } catch (error) {
    if (!isMissing(error)) throw error;
  }
}

function isMissing(error: unknown): boolean {
  const code = error !== null && typeof error === 'object' && 'code' in error ? error.code : undefined;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

function checkRange(range: ByteRange, size: number): void {
  if (!(Number.isSafeInteger(range.start) && Number.isSafeInteger(range.end) && range.start >= 0 && range.start <= range.end && range.end < size)) {
    throw new RangeError(`byte range ${range.start}-${range.end} is outside a blob of ${size} bytes`);
  }
}
