import { argon2, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Passwords are hashed with Argon2id (memory-hard) through Node 24's `crypto.argon2`, with OWASP's
 * baseline parameters (19 MiB of memory, 2 passes, 1 lane), stored as a PHC string
 * `$argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash>` (unpadded base64), so the parameters can be raised
 * later: a hash made with weaker ones is verified with its own and replaced at the next sign-in.
 */
export interface Argon2Params {
  memoryKiB: number;
  passes: number;
  parallelism: number;
}

export const PASSWORD_PARAMS: Argon2Params = { memoryKiB: 19_456, passes: 2, parallelism: 1 };

const SALT_BYTES = 16;
const TAG_BYTES = 32;
const PHC = /^\$argon2id\$v=19\$m=(\d{1,7}),t=(\d{1,3}),p=(\d{1,2})\$([A-Za-z0-9+/]{11,})\$([A-Za-z0-9+/]{16,})$/;

function derive(password: string, salt: Buffer, params: Argon2Params, tagLength: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    argon2(
      'argon2id',
      { message: password, nonce: salt, parallelism: params.parallelism, tagLength, memory: params.memoryKiB, passes: params.passes },
      (error, key) => (error ? reject(error) : resolve(key)),
    );
  });
}

const b64 = (buffer: Buffer) => buffer.toString('base64').replace(/=+$/, '');

export async function hashPassword(password: string, params: Argon2Params = PASSWORD_PARAMS): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const tag = await derive(password, salt, params, TAG_BYTES);
  return `$argon2id$v=19$m=${params.memoryKiB},t=${params.passes},p=${params.parallelism}$${b64(salt)}$${b64(tag)}`;
}

export interface PasswordCheck {
  ok: boolean;
  /** The stored hash used weaker parameters than today's: store a new one. */
  needsRehash: boolean;
}

export async function verifyPassword(password: string, stored: string): Promise<PasswordCheck> {
  const match = PHC.exec(stored);
  if (!match) return { ok: false, needsRehash: false };
  const params: Argon2Params = { memoryKiB: Number(match[1]), passes: Number(match[2]), parallelism: Number(match[3]) };
  const salt = Buffer.from(match[4] ?? '', 'base64');
  const expected = Buffer.from(match[5] ?? '', 'base64');
  const actual = await derive(password, salt, params, expected.length);
  const ok = actual.length === expected.length && timingSafeEqual(actual, expected);
  const weaker =
    params.memoryKiB < PASSWORD_PARAMS.memoryKiB || params.passes < PASSWORD_PARAMS.passes || expected.length < TAG_BYTES;
  return { ok, needsRehash: ok && weaker };
}
