import { randomBytes, randomFillSync } from 'node:crypto';

const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';

/** Random bytes drawn 4,000 at a time: one system call per 400 ids instead of one per id. */
const POOL = Buffer.alloc(4000);
let poolAt = POOL.length;

/** The last id's time and random part, for monotonic ids within one millisecond. */
let lastTime = -1;
const lastRandom = Buffer.alloc(10);

/**
 * A prefixed, time-ordered id (ULID layout: 48 bits of milliseconds, 80 random bits, Crockford base 32,
 * lower case), so ids sort by creation time in indexes and the prefix tells what a pasted id refers to.
 * Monotonic within the process (ULID's monotonic mode): a second id in the same millisecond takes the
 * previous random part plus one, so ids made one after another always sort in that order (a ledger
 * listed by id shows its entries in the order they were written).
 */
export function newId(prefix: string, now: number = Date.now()): string {
  let time = now;
  if (time <= lastTime) {
    time = lastTime;
    increment(lastRandom);
  } else {
    if (poolAt + 10 > POOL.length) {
      randomFillSync(POOL);
      poolAt = 0;
    }
    POOL.copy(lastRandom, 0, poolAt, poolAt + 10);
    poolAt += 10;
    lastTime = time;
  }
  let head = '';
  for (let i = 0; i < 10; i++) {
    head = CROCKFORD[time % 32] + head;
    time = Math.floor(time / 32);
  }
  let tail = '';
  let buffer = 0;
  let bits = 0;
  for (let i = 0; i < 10; i++) {
    buffer = ((buffer << 8) | (lastRandom[i] as number)) & 0xffff;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      tail += CROCKFORD[(buffer >> bits) & 31];
    }
  }
  return `${prefix}_${head}${tail}`;
}

/**
 * The least id of `prefix` made at `ms` or later (every id made then sorts at or above it, every id
 * made before sorts below): a time range of ids read as a range of the primary key.
 */
export function idFloor(prefix: string, ms: number): string {
  let time = Math.max(0, Math.floor(ms));
  let head = '';
  for (let i = 0; i < 10; i++) {
    head = CROCKFORD[time % 32] + head;
    time = Math.floor(time / 32);
  }
  return `${prefix}_${head}${'0'.repeat(16)}`;
}

/** Adds one to a big-endian number (wrapping at 2^80, which 2^80 ids in one millisecond never reach). */
function increment(bytes: Buffer): void {
  for (let i = bytes.length - 1; i >= 0; i--) {
    const value = (bytes[i] as number) + 1;
    bytes[i] = value & 0xff;
    if (value <= 0xff) return;
  }
}

/** Random url-safe token with at least `bytes * 8` bits of entropy. */
export function randomToken(bytes: number): string {
  return randomBytes(bytes).toString('base64url');
}
