/**
 * Where the key of the SecretBox comes from. SWITCHBOARD_SECRET_KEY always wins; a lone embedded
 * gateway may instead keep its own key in `<DATA_DIR>/secret.key`, made on first start, so that live
 * upstream keys work without any setup. Processes that scale out cannot each make a key (one would not
 * open what another sealed), so there the variable is required.
 */
import { randomBytes } from 'node:crypto';
import { link, open, readFile, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ConfigError } from '../../domain/config-error.ts';
import { type SecretBox, SecretBoxError } from '../../ports/secret-box.port.ts';
import { makePrivateDir, makePrivateFile, PRIVATE_FILE_MODE } from '../fs/private-files.ts';
import { AesSecretBox, SECRET_KEY_BYTES } from './aes-secret-box.ts';

export const SECRET_KEY_ENV = 'SWITCHBOARD_SECRET_KEY';
export const SECRET_KEY_FILE = 'secret.key';

const HEX_KEY = /^[0-9a-fA-F]{64}$/;
/** 32 bytes are 43 base64 characters, 44 with the padding; either alphabet. */
const BASE64_KEY = /^[A-Za-z0-9+/_-]{43}=?$/;
const HOW_TO_MAKE = 'make one with `openssl rand -hex 32`';

export interface LoadSecretBoxOptions {
  env: NodeJS.ProcessEnv | Record<string, string | undefined>;
  dataDir: string;
  /** True for the single-process embedded mode, the only one that may make its own key. */
  embedded: boolean;
}

export async function loadSecretBox({ env, dataDir, embedded }: LoadSecretBoxOptions): Promise<SecretBox> {
  // Empty counts as unset, as for the other variables (a compose file's `${VAR}` with VAR unset).
  const fromEnv = env[SECRET_KEY_ENV]?.trim() || undefined;
  if (fromEnv !== undefined) return boxOf(parseEnvKey(fromEnv));
  if (!embedded) {
    throw new ConfigError(
      SECRET_KEY_ENV,
      'is required when the gateway runs as several processes (DATABASE_URL is set): they must all share one key, ' +
        `or one would not open the upstream keys another sealed; ${HOW_TO_MAKE} and give the same value to every process`,
    );
  }
  return boxOf(await readOrCreateKeyFile(dataDir));
}

function boxOf(key: Buffer): SecretBox {
  const box = new AesSecretBox(key);
  // The box holds its own copy; this one need not linger in the heap.
  key.fill(0);
  return box;
}

/** The value is never part of the message: it is the one secret that opens all the others. */
function parseEnvKey(value: string): Buffer {
  if (HEX_KEY.test(value)) return Buffer.from(value, 'hex');
  if (BASE64_KEY.test(value)) {
    const key = Buffer.from(value, 'base64');
    const canonical = value.replace(/=$/, '').replace(/\+/g, '-').replace(/\//g, '_');
    if (key.length === SECRET_KEY_BYTES && key.toString('base64url') === canonical) return key;
    key.fill(0);
  }
  throw new ConfigError(SECRET_KEY_ENV, `must be ${SECRET_KEY_BYTES} bytes written as 64 hex characters, or as base64 or base64url (43 characters, 44 with padding); ${HOW_TO_MAKE}`);
}

async function readOrCreateKeyFile(dataDir: string): Promise<Buffer> {
  await makePrivateDir(dataDir);
  const path = join(dataDir, SECRET_KEY_FILE);
  const existing = await readKeyFile(path);
  if (existing) return existing;
  await createKeyFile(path);
  // Read back rather than trust what was written: if another process won the race, its key is the one.
  const key = await readKeyFile(path);
  if (!key) throw new Error(`${path} vanished while the gateway was creating it`);
  return key;
}

/** The key in the file, or undefined if there is no file. */
async function readKeyFile(path: string): Promise<Buffer | undefined> {
  let text: string;
  try {
    text = await readEventually(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const hex = text.trim();
  if (!HEX_KEY.test(hex)) {
    throw new Error(
      `${path} does not hold a key (64 hex characters). Every upstream key added through the admin API is sealed with it: ` +
        `restore it from a backup, or set ${SECRET_KEY_ENV}; delete it only if no upstream key was added yet`,
    );
  }
  try {
    await makePrivateFile(path);
  } catch (error) {
    // A key mounted read-only or owned by another user is still usable; narrowing it is a courtesy.
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EPERM' && code !== 'EROFS') throw error;
  }
  return Buffer.from(hex, 'hex');
}

/**
 * The file's text, waiting a little while it is empty: only the fallback below (no hard links) can show
 * a file another process has made but not yet written.
 */
async function readEventually(path: string): Promise<string> {
  for (let attempt = 0; ; attempt++) {
    const text = await readFile(path, 'utf8');
    if (text !== '' || attempt >= 20) return text;
    await sleep(25);
  }
}

/**
 * Publishes a new key at `path` unless one is already there, never replacing one: replacing it would
 * orphan whatever was sealed with it. The key is written whole to a temporary file first and hard-linked
 * into place, so no reader sees a partial file and, when two processes start at once, exactly one link
 * succeeds and the other reads that key.
 */
async function createKeyFile(path: string): Promise<void> {
  const key = randomBytes(SECRET_KEY_BYTES);
  const text = `${key.toString('hex')}\n`;
  key.fill(0);
  const temp = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    await writeDurably(temp, text);
    try {
      await link(temp, path);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') return;
      if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'ENOSYS') throw error;
      // A file system without hard links: `wx` still never replaces a key, only without the atomicity.
      try {
        await writeDurably(path, text);
      } catch (inner) {
        if ((inner as NodeJS.ErrnoException).code === 'EEXIST') return;
        throw inner;
      }
    }
    await syncDir(path);
  } finally {
    await unlink(temp).catch(() => {});
  }
}

/** Created 0600 (`wx`: never over an existing file) and flushed, since losing the key loses the sealed values. */
async function writeDurably(path: string, text: string): Promise<void> {
  const handle = await open(path, 'wx', PRIVATE_FILE_MODE);
  try {
    await handle.writeFile(text, 'utf8');
    await handle.chmod(PRIVATE_FILE_MODE);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Makes the new directory entry durable too; not every platform can open a directory, which is fine. */
async function syncDir(path: string): Promise<void> {
  try {
    const handle = await open(dirname(path), 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // Best effort: the file itself is already flushed.
  }
}

/**
 * The box of a gateway that has no key (several processes without SWITCHBOARD_SECRET_KEY): everything
 * else works, and a live upstream key can be neither added nor used, with the reason in words.
 */
export class MissingSecretBox implements SecretBox {
  readonly #reason: string;

  constructor(reason: string) {
    this.#reason = reason;
  }

  seal(): string {
    throw new SecretBoxError(`upstream keys cannot be sealed: ${this.#reason}`);
  }

  open(): string {
    throw new SecretBoxError(`upstream keys cannot be opened: ${this.#reason}`);
  }
}

/** The gateway's box: SWITCHBOARD_SECRET_KEY, the embedded key file, or a MissingSecretBox saying what to set. */
export async function loadGatewaySecretBox(options: LoadSecretBoxOptions): Promise<{ box: SecretBox; missing: string | undefined }> {
  try {
    return { box: await loadSecretBox(options), missing: undefined };
  } catch (error) {
    // A key given but malformed stops the start: running without it would hide the mistake.
    if (!(error instanceof ConfigError) || options.env[SECRET_KEY_ENV]?.trim()) throw error;
    return { box: new MissingSecretBox(error.message.replace(/^invalid configuration: /, '')), missing: error.message };
  }
}
