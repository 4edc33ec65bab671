import type { FastifyInstance } from 'fastify';
import { isValidBlobKey } from '../../adapters/blob/blob-keys.ts';
import { AppError } from '../../domain/errors.ts';
import type { BlobStore, ByteRange, StoredBlob } from '../../ports/blob-store.port.ts';
import { errorResponse } from '../schemas.ts';

export interface FilesRouteOptions {
  /** How long a file lives after it was written (decision 8: 3 days); caches keep it no longer. */
  retentionMs?: number;
  /** Overrides the clock (tests). */
  now?: () => number;
}

const DEFAULT_RETENTION_MS = 3 * 24 * 60 * 60 * 1000;
/** When the store cannot say when a blob was written. */
const FALLBACK_MAX_AGE_S = 24 * 60 * 60;

/**
 * GET /files/<key>: the generated files of the local store, and of an S3 bucket that is not public
 * (the object is streamed from the bucket). The URL is the secret (decision 8), so no credentials.
 *
 * Headers: the stored type with `nosniff` and a sandboxing CSP (a file is never run as a page of our
 * origin, whatever it holds); `Cache-Control: public, immutable` with a max-age that ends when the
 * file's retention does (a key never gets other content, but a cache must not outlive the deletion);
 * single byte ranges (video players seek with them), 416 for a range past the end.
 */
export function registerFilesRoute(app: FastifyInstance, blobStore: BlobStore, options: FilesRouteOptions = {}): void {
  const retentionMs = options.retentionMs ?? DEFAULT_RETENTION_MS;
  const now = options.now ?? Date.now;

  app.get('/files/*', {
    config: {
      docs: {
        summary: 'Download a generated file (the URL itself is the credential; supports Range)',
        tags: ['Files'],
        auth: 'none',
        responses: {
          200: { description: 'The file', contentType: 'application/octet-stream' },
          206: { description: 'The requested byte range', contentType: 'application/octet-stream' },
          404: errorResponse('No such file, or it has expired'),
          416: errorResponse('The range starts past the end of the file'),
        },
      },
    },
    handler: async (request, reply) => {
      const key = (request.params as { '*'?: string })['*'] ?? '';
      const notFound = () => new AppError('not_found', 'file not found (files are kept for 3 days)');
      if (!isValidBlobKey(key)) throw notFound();

      let blob: StoredBlob | undefined;
      const rangeHeader = request.headers.range;
      if (typeof rangeHeader === 'string' && rangeHeader !== '') {
        const info = await blobStore.stat(key);
        if (!info) throw notFound();
        const range = parseByteRange(rangeHeader, info.bytes);
        if (range === 'unsatisfiable') {
          reply.header('accept-ranges', 'bytes');
          reply.header('content-range', `bytes */${info.bytes}`);
          throw new AppError('invalid_input', `the range ${rangeHeader} is outside the file (${info.bytes} bytes)`, { status: 416 });
        }
        blob = range ? await blobStore.get(key, range) : await blobStore.get(key);
      } else {
        blob = await blobStore.get(key);
      }
      if (!blob) throw notFound();

      reply.header('content-type', blob.contentType);
      reply.header('accept-ranges', 'bytes');
      reply.header('cache-control', cacheControl(blob.lastModified, retentionMs, now()));
      if (blob.lastModified !== undefined) reply.header('last-modified', new Date(blob.lastModified).toUTCString());
      reply.header('x-content-type-options', 'nosniff');
      reply.header('content-security-policy', 'sandbox');
      reply.header('cross-origin-resource-policy', 'cross-origin');
      reply.header('access-control-allow-origin', '*');
      if (blob.range) {
        reply.code(206);
        reply.header('content-range', `bytes ${blob.range.start}-${blob.range.end}/${blob.bytes}`);
        reply.header('content-length', String(blob.range.end - blob.range.start + 1));
      } else {
        reply.header('content-length', String(blob.bytes));
      }
      return reply.send(blob.body);
    },
  });
}

function cacheControl(lastModified: number | undefined, retentionMs: number, now: number): string {
  const maxAge = lastModified === undefined ? Math.min(FALLBACK_MAX_AGE_S, Math.floor(retentionMs / 1000)) : Math.floor((lastModified + retentionMs - now) / 1000);
  if (maxAge <= 0) return 'no-cache';
  return `public, max-age=${Math.min(maxAge, Math.floor(retentionMs / 1000))}, immutable`;
}

/**
 * One `bytes=` range resolved against the size (RFC 9110 §14.1.2): a range to serve, `unsatisfiable`
 * (416) when it starts past the end, or null when the header is to be ignored and the whole file
 * sent (several ranges, another unit, or a syntax error, all of which the RFC lets a server ignore).
 */
export function parseByteRange(header: string, size: number): ByteRange | 'unsatisfiable' | null {
  const match = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/iu.exec(header);
  if (!match) return null;
  const [, first = '', last = ''] = match;
  if (first === '' && last === '') return null;
  if (first === '') {
    const suffix = Number(last);
    if (suffix === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(first);
  if (last !== '' && Number(last) < start) return null;
  if (start >= size) return 'unsatisfiable';
  const end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
  return { start, end };
}
