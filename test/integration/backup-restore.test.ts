import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { waitForTask } from '../support/tasks.ts';

// Issue 22, item 4: an online backup of the embedded store, restored into a new data directory.

function cli(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['src/main.ts', ...args], { env: { PATH: process.env.PATH ?? '', ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

async function createImage(gw: TestGateway, key: string, prompt: string): Promise<string> {
  const created = await gw.api(key, 'POST', '/api/v1/generation/create', { model: 'z-image-turbo', input: { prompt } });
  assert.equal(created.status, 200, JSON.stringify(created.body));
  return (created.body as { data: { taskId: string } }).data.taskId;
}

async function fileBytes(gw: TestGateway, key: string, taskId: string): Promise<Buffer> {
  const task = await waitForTask(gw, key, taskId);
  const url = task.files?.[0]?.fileUrl;
  assert.ok(url, `task ${taskId} has a file`);
  const response = await fetch(url.replace(/^https?:\/\/[^/]+/, gw.url));
  assert.equal(response.status, 200);
  return Buffer.from(await response.arrayBuffer());
}

test('backup while the gateway runs, restore into a new data directory: the books verify and the files are served', async () => {
  const work = mkdtempSync(join(tmpdir(), 'sb-backup-'));
  const backupDir = join(work, 'backup');
  const restoredDir = join(work, 'restored');
  const gw = await startTestGateway('embedded');
  let restored: TestGateway | undefined;
  try {
    const { key } = await ctx(gw);
    const first = await createImage(gw, key, 'a lighthouse at dusk');
    const firstBytes = await fileBytes(gw, key, first);
    // An upstream key added live is sealed with DATA_DIR/secret.key: the backup must carry that key.
    await gw.admin('PUT', '/admin/v1/providers/sealed', { type: 'openai', baseUrl: 'http://127.0.0.1:9/v1', keys: [{ secret: 'sk-backup-0000000000000000zzzz' }] });

    // The copy is made while creates go on.
    const during = Array.from({ length: 6 }, (_, i) => createImage(gw, key, `during the backup ${i}`));
    const made = await cli(['backup', backupDir], gw.env);
    assert.equal(made.code, 0, made.stderr);
    const manifest = JSON.parse(made.stdout) as { schemaVersion: number; files: { count: number }; database: { sha256: string } };
    assert.ok(manifest.files.count >= 1);
    assert.match(manifest.database.sha256, /^[0-9a-f]{64}$/);
    for (const id of await Promise.all(during)) await waitForTask(gw, key, id);

    const again = await cli(['backup', backupDir], gw.env);
    assert.equal(again.code, 1, 'a backup never writes into a directory that holds something');
    await gw.close();

    const env: Record<string, string> = { ...gw.env, DATA_DIR: restoredDir };
    delete env.PUBLIC_BASE_URL;
    const put = await cli(['restore', backupDir], env);
    assert.equal(put.code, 0, put.stderr);
    assert.equal((JSON.parse(put.stdout) as { movedAside: string | null }).movedAside, null);
    const verify = await cli(['ledger', 'verify'], env);
    assert.equal(verify.code, 0, `ledger verify: ${verify.stdout}${verify.stderr}`);

    restored = await startTestGateway('embedded', { env: { DATA_DIR: restoredDir } });
    const sealed = await restored.admin<{ keys: Array<{ hint: string; enabled: boolean }> }>('GET', '/admin/v1/providers/sealed');
    assert.deepEqual(sealed.keys.map((k) => [k.hint, k.enabled]), [['sk-…zzzz', true]], 'the restored gateway opens the live upstream key');
    assert.deepEqual(await fileBytes(restored, key, first), firstBytes, 'the same file, served by the restored gateway, with the same key');
    const next = await createImage(restored, key, 'after the restore');
    await fileBytes(restored, key, next);
  } finally {
    await restored?.close();
    rmSync(work, { recursive: true, force: true });
  }
});

test('restore refuses a live gateway, a changed backup and a directory that is not a backup; what was there is moved aside', async () => {
  const work = mkdtempSync(join(tmpdir(), 'sb-backup-'));
  const gw = await startTestGateway('embedded');
  try {
    const { key } = await ctx(gw);
    await fileBytes(gw, key, await createImage(gw, key, 'kept'));
    const backupDir = join(work, 'backup');
    assert.equal((await cli(['backup', backupDir], gw.env)).code, 0);
    const target = join(work, 'target');
    const env = { ...gw.env, DATA_DIR: target };
    assert.equal((await cli(['restore', backupDir], env)).code, 0);

    // A gateway that looks alive on the target (this test process stands in for it).
    writeFileSync(join(target, 'switchboard.pid'), `${process.pid}\n`);
    const live = await cli(['restore', backupDir], env);
    assert.equal(live.code, 1);
    assert.match(live.stderr, /is running/);
    const forced = await cli(['restore', backupDir, '--force'], env);
    assert.equal(forced.code, 0, forced.stderr);
    const aside = (JSON.parse(forced.stdout) as { movedAside: string }).movedAside;
    assert.ok(existsSync(join(aside, 'switchboard.db')), 'the store that was there is kept aside');
    rmSync(join(target, 'switchboard.pid'));

    const changed = join(work, 'changed');
    assert.equal((await cli(['backup', changed], gw.env)).code, 0);
    const db = readFileSync(join(changed, 'switchboard.db'));
    db[db.length - 1] = (db[db.length - 1] ?? 0) ^ 0xff;
    writeFileSync(join(changed, 'switchboard.db'), db);
    const before = readdirSync(target).sort();
    const refused = await cli(['restore', changed], env);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /does not match its manifest/);
    assert.deepEqual(readdirSync(target).sort(), before, 'nothing was moved');

    const notBackup = await cli(['restore', work], env);
    assert.equal(notBackup.code, 1);
    assert.match(notBackup.stderr, /not a finished backup/);
    const usage = await cli(['restore'], env);
    assert.equal(usage.code, 2);
  } finally {
    await gw.close();
    rmSync(work, { recursive: true, force: true });
  }
});

test('backup and restore refuse the scale-out store, naming its tools', async () => {
  const refused = await cli(['backup', join(tmpdir(), 'never')], { DATABASE_URL: 'postgres://127.0.0.1:1/none', ADMIN_TOKEN: 'x'.repeat(40) });
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /pg_dump/);
});

async function ctx(gw: TestGateway) {
  return gw.createUser(500);
}
