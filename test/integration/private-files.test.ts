import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { backupEmbedded, restoreEmbedded } from '../../src/adapters/backup/embedded-backup.ts';
import { listMigrations } from '../../src/adapters/db/migrate.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { waitForTask } from '../support/tasks.ts';

// Issue 29, item 12: a new DATA_DIR, the SQLite files (with -wal and -shm), the local files, backups
// and restores were made with the umask (0755 and 0644 under 022), and the database holds every
// customer's webhook signing secret in clear. Directories 0700 and files 0600 whatever the umask.

const work = mkdtempSync(join(tmpdir(), 'sb-private-'));
const previousUmask = process.umask(0o022);
let gw: TestGateway;

before(async () => {
  gw = await startTestGateway('embedded', { env: { DATA_DIR: join(work, 'new', 'data') } });
});
after(async () => {
  await gw?.close();
  process.umask(previousUmask);
  rmSync(work, { recursive: true, force: true });
});

/** Every entry under `dir` (itself included) whose mode is not 0700 for a directory or 0600 for a file. */
function wideEntries(dir: string): string[] {
  const wide: string[] = [];
  const check = (path: string) => {
    const stats = statSync(path);
    const mode = stats.mode & 0o777;
    if (mode !== (stats.isDirectory() ? 0o700 : 0o600)) wide.push(`${path} ${mode.toString(8)}`);
  };
  check(dir);
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) check(join(entry.parentPath, entry.name));
  return wide;
}

test('the store, its WAL, the local files, a backup and a restore are for the gateway\'s user only, under umask 022', async () => {
  const dataDir = join(work, 'new', 'data');
  const { key } = await gw.createUser(500);
  const created = await gw.api(key, 'POST', '/api/v1/generation/create', { model: 'z-image-turbo', input: { prompt: 'a locked door' } });
  assert.equal(created.status, 200, JSON.stringify(created.body));
  await waitForTask(gw, key, (created.body as { data: { taskId: string } }).data.taskId);

  const names = readdirSync(dataDir, { recursive: true }).map(String);
  for (const name of ['switchboard.db', 'switchboard.db-wal', 'switchboard.db-shm', 'files']) assert.ok(names.includes(name), `${name} in ${names.join(', ')}`);
  assert.ok(names.some((name) => name.startsWith('files/') && name.endsWith('.png')), 'a result file is stored locally');
  assert.deepEqual(wideEntries(dataDir), [], 'DATA_DIR');

  const backupDir = join(work, 'backups', 'one');
  const manifest = await backupEmbedded(dataDir, backupDir, true);
  assert.ok((manifest.files?.count ?? 0) >= 1);
  assert.deepEqual(wideEntries(join(work, 'backups')), [], 'the backup');

  const restoredDir = join(work, 'restored', 'data');
  const newest = Math.max(...(await listMigrations('sqlite')).map((m) => m.version));
  await restoreEmbedded(backupDir, restoredDir, newest);
  assert.deepEqual(wideEntries(join(work, 'restored')), [], 'the restore');
});

test('an older install\'s DATA_DIR (0755, its database 0644) is narrowed at start', async () => {
  const oldDir = join(work, 'old', 'data');
  mkdirSync(oldDir, { recursive: true, mode: 0o755 });
  chmodSync(oldDir, 0o755);
  writeFileSync(join(oldDir, 'switchboard.db'), '', { mode: 0o644 });
  chmodSync(join(oldDir, 'switchboard.db'), 0o644);
  const old = await startTestGateway('embedded', { env: { DATA_DIR: oldDir } });
  try {
    await old.createUser(100);
    assert.deepEqual(wideEntries(oldDir), []);
  } finally {
    await old.close();
  }
});
