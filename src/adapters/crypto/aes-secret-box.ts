/**
 * The SecretBox behind the upstream keys an operator adds live: AES-256-GCM, so a sealed value that
 * was altered, cut or sealed under another key is refused rather than opened into garbage. The sealed
 * text names a short fingerprint of its key, which turns "wrong SWITCHBOARD_SECRET_KEY" into a clear
 * error instead of an anonymous tag failure.
 */
import { createCipheriv, createDecipheriv, createHash, createSecretKey, type KeyObject, randomBytes } from 'node:crypto';
import { type SecretBox, SecretBoxError } from '../../ports/secret-box.port.ts';

export const SECRET_KEY_BYTES = 32;
const VERSION = 'sb1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const BASE64URL = /^[A-Za-z0-9_-]*$/;
const KEY_ID = /^[0-9a-f]{8}$/;

/** The first 4 bytes of sha256 of the key, in hex: enough to tell keys apart, useless to guess one. */
export function secretKeyId(key: Buffer): string {
  return createHash('sha256').update(key).digest().subarray(0, 4).toString('hex');
}

export class AesSecretBox implements SecretBox {
  // A KeyObject keeps the key out of the JS heap and away from accidental logging of this object.
  readonly #key: KeyObject;
  readonly #keyId: string;
  readonly #header: string;

  constructor(key: Buffer) {
    if (!Buffer.isBuffer(key) || key.length !== SECRET_KEY_BYTES) throw new RangeError(`a secret box key is ${SECRET_KEY_BYTES} bytes`);
    this.#key = createSecretKey(key);
    this.#keyId = secretKeyId(key);
    this.#header = `${VERSION}.${this.#keyId}`;
  }

  /** The fingerprint that every value this box seals carries; safe to log. */
  get keyId(): string {
    return this.#keyId;
  }

  seal(secret: string): string {
    if (typeof secret !== 'string') throw new SecretBoxError('only a string can be sealed');
    // UTF-8 would replace a lone surrogate, so the value opened would differ from the one sealed.
    if (!secret.isWellFormed()) throw new SecretBoxError('the secret is not well-formed Unicode (it has a lone surrogate)');
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv, { authTagLength: TAG_BYTES });
    // The header is authenticated too, so a value cannot be relabelled with another key id or version.
    cipher.setAAD(Buffer.from(this.#header, 'ascii'));
    const ciphertext = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
    const tag = cipher.getAuthTag();
    return `${this.#header}.${iv.toString('base64url')}.${ciphertext.toString('base64url')}.${tag.toString('base64url')}`;
  }

  open(sealed: string): string {
    // Messages below describe the shape only: the sealed text is not echoed, since it travels with logs.
    if (typeof sealed !== 'string') throw new SecretBoxError('a sealed value is a string');
    const parts = sealed.split('.');
    if (parts.length !== 5) throw new SecretBoxError('not a sealed value (expected sb1.<key id>.<iv>.<ciphertext>.<tag>)');
    const [version, keyId, ivText, ciphertextText, tagText] = parts as [string, string, string, string, string];
    if (version !== VERSION) throw new SecretBoxError(`not a sealed value of a known version (expected ${VERSION})`);
    if (!KEY_ID.test(keyId)) throw new SecretBoxError('not a sealed value (malformed key id)');
    if (keyId !== this.#keyId) {
      throw new SecretBoxError(`sealed with another key (key id ${keyId}; this key's id is ${this.#keyId}): is SWITCHBOARD_SECRET_KEY the one it was sealed with?`);
    }
    const iv = decodeBase64url(ivText, 'iv');
    const ciphertext = decodeBase64url(ciphertextText, 'ciphertext');
    const tag = decodeBase64url(tagText, 'tag');
    if (iv.length !== IV_BYTES) throw new SecretBoxError('not a sealed value (malformed iv)');
    if (tag.length !== TAG_BYTES) throw new SecretBoxError('not a sealed value (malformed tag)');
    const decipher = createDecipheriv('aes-256-gcm', this.#key, iv, { authTagLength: TAG_BYTES });
    decipher.setAAD(Buffer.from(`${version}.${keyId}`, 'ascii'));
    decipher.setAuthTag(tag);
    let plain: Buffer;
    try {
      plain = Buffer.concat([decipher.update(ciphertext), decipher.final()]);
    } catch {
      throw new SecretBoxError('the sealed value was altered or damaged (authentication failed)');
    }
    return plain.toString('utf8');
  }
}

/** Node's decoder skips characters it does not know, so the text is checked to be canonical first. */
function decodeBase64url(text: string, part: string): Buffer {
  if (!BASE64URL.test(text)) throw new SecretBoxError(`not a sealed value (malformed ${part})`);
  const bytes = Buffer.from(text, 'base64url');
  if (bytes.toString('base64url') !== text) throw new SecretBoxError(`not a sealed value (malformed ${part})`);
  return bytes;
}
