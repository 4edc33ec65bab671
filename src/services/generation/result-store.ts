import { blobKeyFor } from '../../adapters/blob/blob-keys.ts';
import { CONTENT_TYPES, detectFormat, FORMAT_KINDS, fileExtension } from '../../domain/files/media-format.ts';
import type { GuardedHttpClient } from '../../adapters/outbound/guarded-http-client.ts';
import { unavailableDependency } from '../../domain/errors.ts';
import type { BlobStore } from '../../ports/blob-store.port.ts';
import type { ProviderError, ResultFileType, UpstreamFile, UpstreamResult } from '../../providers/media/media-provider.ts';

/** A file as the task row keeps it: the blob key, not the URL (the URL is made when it is shown). */
export interface TaskFile {
  blobKey: string;
  fileType: ResultFileType;
  contentType: string;
  bytes: number;
}

export interface StoredResult {
  files: TaskFile[];
  /** With music cover images replaced by `blob:<key>` references to our copies. */
  output: Record<string, unknown> | null;
}

/** Copying failed in a way another provider might not repeat (a broken or missing file). */
export class ResultCopyError extends Error {
  readonly providerError: ProviderError;
  constructor(message: string) {
    super(message);
    this.providerError = { message, retryable: true };
  }
}

const KIND_OF_FILE_TYPE = { image: 'image', video: 'video', music: 'audio' } as const;
const FIRST_STORE_RETRY_MS = 250;
const LONGEST_STORE_RETRY_MS = 5_000;

/** How long to keep trying our own store with the result in hand, and when to stop (the job's signal). */
export interface StorePatience {
  /** From the first failed write; Infinity when the result cannot be fetched again (it came inline). */
  patienceMs: number;
  signal: AbortSignal;
}

/**
 * Copies an upstream result into our storage (decision 8): each file downloaded through the guarded
 * client with a size bound (or taken from inline bytes), its type checked against the bytes, and stored
 * under a key that is unguessable yet the same for a retried copy of the same attempt (`blobKeyFor`
 * under the attempt's secret callback token), so a retry overwrites instead of leaving orphans.
 */
export class ResultStore {
  private readonly blobs: BlobStore;
  private readonly client: GuardedHttpClient;
  private readonly maxBytes: number;

  constructor(blobs: BlobStore, client: GuardedHttpClient, maxBytes: number) {
    this.blobs = blobs;
    this.client = client;
    this.maxBytes = maxBytes;
  }

  /**
   * Copies every file of the result. A write our own store refuses for the moment (an outage) is
   * retried with backoff for `patience`, with the bytes in hand: the provider did its job, so its
   * deadline is not spent on our store (issue 17). Past that, the DependencyUnavailableError goes up.
   */
  async store(taskId: string, attemptSecret: string, result: UpstreamResult, patience?: StorePatience): Promise<StoredResult> {
    const files: TaskFile[] = [];
    for (const [position, file] of result.files.entries()) {
      files.push(await this.copy(taskId, attemptSecret, position, file, KIND_OF_FILE_TYPE[file.fileType], patience));
    }
    const output = result.output ? await this.copyCovers(taskId, attemptSecret, result.output, files.length, patience) : null;
    return { files, output };
  }

  /** Removes copies of a result that will not be used (a late or lost race). */
  async discard(files: TaskFile[]): Promise<void> {
    for (const file of files) await this.blobs.delete(file.blobKey).catch(() => {});
  }

  private async copy(taskId: string, secret: string, position: number, file: UpstreamFile, kind: 'image' | 'video' | 'audio', patience?: StorePatience): Promise<TaskFile> {
    const bytes = file.data ?? (await this.download(file.url));
    const format = detectFormat(bytes);
    if (!format) throw new ResultCopyError(`result file ${position + 1} is not a media file we recognise`);
    if (!FORMAT_KINDS[format].includes(kind)) throw new ResultCopyError(`result file ${position + 1} is ${format}, not ${kind}`);
    const blobKey = blobKeyFor(secret, taskId, position, fileExtension(format));
    const contentType = CONTENT_TYPES[format];
    await this.putPatiently(blobKey, bytes, contentType, patience);
    return { blobKey, fileType: file.fileType, contentType, bytes: bytes.length };
  }

  private async putPatiently(key: string, bytes: Buffer, contentType: string, patience: StorePatience | undefined): Promise<void> {
    let giveUpAt: number | undefined;
    let wait = FIRST_STORE_RETRY_MS;
    for (;;) {
      try {
        await this.blobs.put(key, bytes, contentType);
        return;
      } catch (error) {
        if (!patience || unavailableDependency(error)?.dependency !== 'storage') throw error;
        giveUpAt ??= Date.now() + patience.patienceMs;
        if (patience.signal.aborted || Date.now() + wait > giveUpAt) throw error;
        await sleep(wait, patience.signal);
        wait = Math.min(LONGEST_STORE_RETRY_MS, wait * 2);
      }
    }
  }

  private async download(url: string | undefined): Promise<Buffer> {
    if (!url) throw new ResultCopyError('a result file has neither a URL nor data');
    if (url.startsWith('data:')) return decodeDataUri(url);
    try {
      const response = await this.client.request({ url, method: 'GET', timeoutMs: 120_000, maxBytes: this.maxBytes });
      if (response.status < 200 || response.status > 299) throw new ResultCopyError(`downloading a result file answered ${response.status}`);
      return response.body;
    } catch (error) {
      if (error instanceof ResultCopyError) throw error;
      throw new ResultCopyError(`downloading a result file failed: ${(error as Error).message}`);
    }
  }

  private async copyCovers(taskId: string, secret: string, output: Record<string, unknown>, offset: number, patience?: StorePatience): Promise<Record<string, unknown>> {
    const tracks = output.tracks;
    if (!Array.isArray(tracks)) return output;
    let position = offset;
    const copied = [];
    for (const track of tracks) {
      if (track === null || typeof track !== 'object' || !Array.isArray((track as { coverImageUrls?: unknown }).coverImageUrls)) {
        copied.push(track);
        continue;
      }
      const urls: string[] = [];
      for (const url of (track as { coverImageUrls: unknown[] }).coverImageUrls) {
        if (typeof url !== 'string') continue;
        const stored = await this.copy(taskId, secret, position++, { fileType: 'image', url }, 'image', patience);
        urls.push(`blob:${stored.blobKey}`);
      }
      copied.push({ ...track, coverImageUrls: urls });
    }
    return { ...output, tracks: copied };
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

function decodeDataUri(uri: string): Buffer {
  const comma = uri.indexOf(',');
  if (comma < 0 || !uri.slice(0, comma).endsWith(';base64')) throw new ResultCopyError('a result data URI is not base64');
  return Buffer.from(uri.slice(comma + 1), 'base64');
}
