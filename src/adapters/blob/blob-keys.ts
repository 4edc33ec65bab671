import { createHmac, randomBytes } from 'node:crypto';
import { CONTENT_TYPES } from '../../domain/files/media-format.ts';

/**
 * Blob keys: `<token>/<name>.<ext>`. The token makes the public URL unguessable (at least 128 bits);
 * the name says what the file is when someone downloads it or lists the bucket.
 *
 * Keys use only `A-Z a-z 0-9 _ - .` in segments separated by `/`; no segment starts with `.` and none
 * holds `..`, so a key can never climb out of the local files directory, name a hidden file, or need
 * escaping in a URL. The local store relies on `~` never being part of a key for its side files.
 */

const SEGMENT = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$/;
const EXTENSION = /^[a-z0-9]{1,10}$/;
const NAME_PART = /^[A-Za-z0-9_-]{1,100}$/;
const MAX_KEY_LENGTH = 512;
const MAX_SEGMENTS = 8;
/** 20 bytes = 160 bits, written as 32 lower-case base32 characters. */
const TOKEN_BYTES = 20;
const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

export function isValidBlobKey(key: string): boolean {
  if (key.length === 0 || key.length > MAX_KEY_LENGTH) return false;
  const segments = key.split('/');
  if (segments.length > MAX_SEGMENTS) return false;
  return segments.every((segment) => SEGMENT.test(segment) && !segment.includes('..'));
}

export class InvalidBlobKeyError extends Error {
  constructor(key: string) {
    super(`invalid blob key ${JSON.stringify(key.slice(0, 100))}: segments of A-Z a-z 0-9 _ - . separated by /, no leading dot, no ..`);
    this.name = 'InvalidBlobKeyError';
  }
}

export function assertValidBlobKey(key: string): void {
  if (!isValidBlobKey(key)) throw new InvalidBlobKeyError(key);
}

/**
 * A fresh random key, for a file that has no attempt to tie it to (an upload, an agent artifact).
 * Two calls never give the same key, so a retried write leaves the first copy behind: prefer
 * `blobKeyFor` when the write can be retried.
 */
export function newBlobKey(taskId: string, position: number, extension: string): string {
  return `${base32(randomBytes(TOKEN_BYTES))}/${fileName(taskId, position, extension)}`;
}

/**
 * The key of file `position` of one provider attempt: unguessable (the token is an HMAC under a
 * secret that never leaves the server), yet the same every time it is computed for the same attempt,
 * so a store that is retried after a crash overwrites its own earlier copy instead of leaving an
 * orphan. `secretSeed` must be secret and stable for the attempt (the attempt's random callback token
 * will do); `attemptId` also names the file (a task id works as well when the seed is per attempt).
 */
export function blobKeyFor(secretSeed: string, attemptId: string, position: number, extension: string): string {
  if (secretSeed.length < 16) throw new RangeError('blobKeyFor needs a secret seed of at least 16 characters');
  const mac = createHmac('sha256', secretSeed).update(`switchboard-blob-key\n${attemptId}\n${position}`).digest();
  return `${base32(mac.subarray(0, TOKEN_BYTES))}/${fileName(attemptId, position, extension)}`;
}

function fileName(id: string, position: number, extension: string): string {
  if (!NAME_PART.test(id)) throw new RangeError(`a blob key name part must be 1-100 of A-Z a-z 0-9 _ -, got ${JSON.stringify(id)}`);
  if (!Number.isSafeInteger(position) || position < 0) throw new RangeError(`position must be a whole number >= 0, got ${position}`);
  if (!EXTENSION.test(extension)) throw new RangeError(`extension must be 1-10 of a-z 0-9, got ${JSON.stringify(extension)}`);
  return `${id}-${position}.${extension}`;
}

function base32(bytes: Uint8Array): string {
  let out = '';
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = ((buffer << 8) | byte) & 0xffff;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += BASE32[(buffer >> bits) & 31];
    }
  }
  if (bits > 0) out += BASE32[(buffer << (5 - bits)) & 31];
  return out;
}

const TYPES_BY_EXTENSION: Record<string, string> = {
  ...CONTENT_TYPES,
  jpg: 'image/jpeg',
  json: 'application/json',
  txt: 'text/plain; charset=utf-8',
};

/** A fallback when a store has lost the type it was given (a local file without its side file). */
export function contentTypeFromKey(key: string): string {
  const dot = key.lastIndexOf('.');
  const extension = dot > key.lastIndexOf('/') ? key.slice(dot + 1).toLowerCase() : '';
  return TYPES_BY_EXTENSION[extension] ?? 'application/octet-stream';
}
