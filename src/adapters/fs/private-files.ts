import { chmodSync, closeSync, mkdirSync, openSync } from 'node:fs';
import { chmod, mkdir } from 'node:fs/promises';

/**
 * What the gateway writes on disk is for its own user only: the database holds every customer's
 * webhook signing secret in clear, and the files are served by the gateway itself. So directories are
 * 0700 and files 0600 whatever the umask (issue 29): created with these modes and set again with chmod,
 * since a mode given at creation only ever loses bits to the umask, and an older install's 0755 stays.
 */
export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/** A directory (and its missing parents) only its owner can enter; an existing one is narrowed. */
export async function makePrivateDir(path: string): Promise<void> {
  await mkdir(path, { recursive: true, mode: PRIVATE_DIR_MODE });
  await chmod(path, PRIVATE_DIR_MODE);
}

export function makePrivateDirSync(path: string): void {
  mkdirSync(path, { recursive: true, mode: PRIVATE_DIR_MODE });
  chmodSync(path, PRIVATE_DIR_MODE);
}

/** An existing file narrowed to 0600. */
export async function makePrivateFile(path: string): Promise<void> {
  await chmod(path, PRIVATE_FILE_MODE);
}

/**
 * A file that exists and is 0600, created empty if missing: SQLite creates its database 0644 and gives
 * the -wal and -shm files the database's mode, so the database file is made before SQLite opens it.
 * The optional `companions` (an existing -wal or -shm of an older install) are narrowed too.
 */
export function makePrivateFileSync(path: string, companions: string[] = []): void {
  closeSync(openSync(path, 'a', PRIVATE_FILE_MODE));
  chmodSync(path, PRIVATE_FILE_MODE);
  for (const companion of companions) {
    try {
      chmodSync(companion, PRIVATE_FILE_MODE);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
}
