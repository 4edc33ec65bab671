import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * The address a running gateway was reached at, kept in its data directory when PUBLIC_BASE_URL is not
 * set, so that the CLI (run later, often without the PORT that `serve` was given) prints links to
 * where the gateway really answers instead of the default port.
 */
const FILE = 'public-base-url';

export async function recordServedBaseUrl(dataDir: string, url: string): Promise<void> {
  // For the gateway's user only, as everything in DATA_DIR (src/adapters/fs/private-files.ts; config imports no adapter).
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  await writeFile(join(dataDir, FILE), `${url}\n`, { mode: 0o600 });
}

/** The recorded address, or undefined when no gateway recorded one here. */
export async function readServedBaseUrl(dataDir: string): Promise<string | undefined> {
  try {
    const text = (await readFile(join(dataDir, FILE), 'utf8')).trim();
    return /^https?:\/\/[^\s]+$/.test(text) ? text : undefined;
  } catch {
    return undefined;
  }
}
