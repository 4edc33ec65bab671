import { randomBytes } from 'node:crypto';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/**
 * A prefixed, time-ordered id (ULID layout: 48 bits of milliseconds, 80 random bits), so ids sort by
 * creation time in indexes and the prefix tells what a pasted id refers to.
 */
export function newId(prefix: string, now: number = Date.now()): string {
  let time = now;
  let head = '';
  for (let i = 0; i < 10; i++) {
    head = CROCKFORD[time % 32] + head;
    time = Math.floor(time / 32);
  }
  const bytes = randomBytes(10);
  let tail = '';
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      tail += CROCKFORD[(buffer >> bits) & 31];
    }
  }
  return `${prefix}_${head}${tail}`.toLowerCase();
}

/** Random url-safe token with at least `bytes * 8` bits of entropy. */
export function randomToken(bytes: number): string {
  return randomBytes(bytes).toString('base64url');
}
