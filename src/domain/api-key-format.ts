import { createHash, randomBytes } from 'node:crypto';

/** `sb_` marks our keys (secret scanners can match it); 24 random bytes give 192 bits. */
const KEY_MARK = 'sb_';
const PREFIX_LENGTH = 11;

export interface GeneratedKey {
  key: string;
  prefix: string;
  hash: string;
}

export function generateApiKey(): GeneratedKey {
  const key = KEY_MARK + randomBytes(24).toString('base64url');
  return { key, prefix: key.slice(0, PREFIX_LENGTH), hash: hashApiKey(key) };
}

/** Keys are long random strings, so a fast hash suffices: there is nothing to brute-force. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

export function looksLikeApiKey(value: string): boolean {
  return value.length >= 20 && value.length <= 200 && /^[\x21-\x7e]+$/.test(value);
}
