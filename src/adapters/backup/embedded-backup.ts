import { createHash } from 'node:crypto';
import { createReadStream, existsSync } from 'node:fs';
import { cp, readdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { makePrivateDir, makePrivateFile, PRIVATE_FILE_MODE } from '../fs/private-files.ts';

/** What a backup directory holds, written last: a directory without it is not a finished backup. */
export interface BackupManifest {
  format: 'switchboard-embedded-backup';
  version: 1;
  createdAt: string;
  /** The newest migration the database had: a restore onto older code is refused. */
  schemaVersion: number;
  database: { file: 'switchboard.db'; bytes: number; sha256: string };
  /** The gateway's own files (results, attachments, storage); absent when they live in S3. */
  files: { count: number; bytes: number } | null;
  /** True when the key that seals the live upstream keys (`secret.key`) is in the backup; absent in older backups. */
  secretKey?: boolean;
}

/** The embedded gateway's own secret key (load-secret-box.ts): without it the stored upstream keys cannot be opened. */
const SECRET_KEY_FILE = 'secret.key';

export const DATABASE_FILE = 'switchboard.db';
const MANIFEST = 'manifest.json';

/**
 * An online copy of the embedded store: the SQLite database by `VACUUM INTO` (one read transaction,
 * so one consistent moment, while the gateway goes on writing beside it in WAL mode), then the local
 * files. The database is copied first: a file written after that moment is an extra copy nobody
 * points to, and only a file the retention sweep deletes during the copy can be missing (its task
 * expires on the restored gateway as it would have). Like the store itself, every copy is for the
 * gateway's user only (directories 0700, files 0600, private-files.ts): it holds the webhook secrets.
 */
export async function backupEmbedded(dataDir: string, target: string, copyFiles: boolean): Promise<BackupManifest> {
  await makePrivateDir(target);
  if ((await readdir(target)).length > 0) throw new BackupError(`${target} is not empty: give a new directory`);
  const source = new DatabaseSync(join(dataDir, DATABASE_FILE), { readOnly: true, timeout: 10_000 });
  const copy = join(target, DATABASE_FILE);
  try {
    source.prepare('VACUUM INTO ?').run(copy);
  } finally {
    source.close();
  }
  await makePrivateFile(copy);
  const schemaVersion = checkDatabase(copy);
  const files = copyFiles ? await copyTree(join(dataDir, 'files'), join(target, 'files')) : null;
  const secretKey = existsSync(join(dataDir, SECRET_KEY_FILE));
  if (secretKey) {
    await cp(join(dataDir, SECRET_KEY_FILE), join(target, SECRET_KEY_FILE));
    await makePrivateFile(join(target, SECRET_KEY_FILE));
  }
  const manifest: BackupManifest = {
    format: 'switchboard-embedded-backup',
    version: 1,
    createdAt: new Date().toISOString(),
    schemaVersion,
    database: { file: DATABASE_FILE, bytes: (await stat(copy)).size, sha256: await sha256Of(copy) },
    files,
    secretKey,
  };
  await writeFile(join(target, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`, { mode: PRIVATE_FILE_MODE });
  await makePrivateFile(join(target, MANIFEST));
  return manifest;
}

/**
 * Puts a backup in place of the store of a stopped gateway. What was there is moved aside (to
 * `before-restore-<time>` in the data directory), never deleted, and the backup is checked (manifest,
 * checksum, integrity) before anything is moved.
 */
export async function restoreEmbedded(source: string, dataDir: string, newestKnownMigration: number): Promise<{ manifest: BackupManifest; movedAside: string | null }> {
  const manifest = await readManifest(source);
  const backupDb = join(source, DATABASE_FILE);
  if ((await sha256Of(backupDb)) !== manifest.database.sha256) throw new BackupError(`${backupDb} does not match its manifest (changed or cut)`);
  if (checkDatabase(backupDb) !== manifest.schemaVersion) throw new BackupError('the database does not have the schema version its manifest names');
  if (manifest.schemaVersion > newestKnownMigration) {
    throw new BackupError(`the backup comes from a newer version (schema ${manifest.schemaVersion}; this one knows up to ${newestKnownMigration}): restore it with that version`);
  }
  await makePrivateDir(dataDir);
  // A backup with its own key replaces the key here too (moved aside with the rest): the two belong together.
  const present = (await readdir(dataDir)).filter((name) => name.startsWith(DATABASE_FILE) || name === 'files' || (manifest.secretKey === true && name === SECRET_KEY_FILE));
  let movedAside: string | null = null;
  if (present.length > 0) {
    movedAside = join(dataDir, `before-restore-${new Date().toISOString().replace(/[:.]/g, '-')}`);
    await makePrivateDir(movedAside);
    for (const name of present) await rename(join(dataDir, name), join(movedAside, name));
  }
  await cp(backupDb, join(dataDir, DATABASE_FILE));
  await makePrivateFile(join(dataDir, DATABASE_FILE));
  if (manifest.files) await copyTree(join(source, 'files'), join(dataDir, 'files'));
  if (manifest.secretKey === true) {
    await cp(join(source, SECRET_KEY_FILE), join(dataDir, SECRET_KEY_FILE));
    await makePrivateFile(join(dataDir, SECRET_KEY_FILE));
  }
  return { manifest, movedAside };
}

export class BackupError extends Error {
  override name = 'BackupError';
}

async function readManifest(source: string): Promise<BackupManifest> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(join(source, MANIFEST), 'utf8'));
  } catch {
    throw new BackupError(`${source} holds no readable ${MANIFEST}: not a finished backup`);
  }
  const m = parsed as Partial<BackupManifest>;
  if (m.format !== 'switchboard-embedded-backup' || m.version !== 1 || typeof m.schemaVersion !== 'number' || typeof m.database?.sha256 !== 'string') {
    throw new BackupError(`${join(source, MANIFEST)} is not a manifest of an embedded backup`);
  }
  return m as BackupManifest;
}

/** Runs SQLite's integrity check on a copy and returns its newest migration. */
function checkDatabase(path: string): number {
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    const check = db.prepare('PRAGMA integrity_check').all() as Array<{ integrity_check: string }>;
    if (check.length !== 1 || check[0]?.integrity_check !== 'ok') throw new BackupError(`${path} fails SQLite's integrity check`);
    const row = db.prepare('SELECT max(version) AS version FROM schema_migrations').get() as { version: number | null } | undefined;
    if (!row || row.version === null) throw new BackupError(`${path} is not a Switchboard database (no migrations)`);
    return Number(row.version);
  } finally {
    db.close();
  }
}

/** Copies a directory tree file by file (a missing source is an empty tree) and counts it. */
async function copyTree(from: string, to: string): Promise<{ count: number; bytes: number }> {
  let count = 0;
  let bytes = 0;
  const entries = await readdir(from, { recursive: true, withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [];
    throw error;
  });
  await makePrivateDir(to);
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    const relative = join(entry.parentPath, entry.name).slice(from.length + 1);
    const destination = join(to, relative);
    try {
      // cp would make missing directories with the umask, and give the copy its source's mode.
      await makePrivateDir(dirname(destination));
      await cp(join(from, relative), destination, { force: false, errorOnExist: true });
      await makePrivateFile(destination);
    } catch (error) {
      // Deleted by the retention sweep since it was listed: nothing points to it after this copy either.
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw error;
    }
    count += 1;
    bytes += (await stat(destination)).size;
  }
  return { count, bytes };
}

async function sha256Of(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}
