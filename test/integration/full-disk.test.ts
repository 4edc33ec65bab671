import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmdirSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { newBlobKey } from '../../src/adapters/blob/blob-keys.ts';
import { unavailableDependency } from '../../src/domain/errors.ts';
import { toAppError } from '../../src/http/error-handler.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';

// Issue 29, item 11: with DATA_DIR full the gateway answered 500 internal_error while /readyz said
// 200, and a start on the full disk died with "SQL logic error". A real full disk: a small tmpfs
// (CI runs as root); without the right to mount, the test is skipped with the reason.

const root = mkdtempSync(join(tmpdir(), 'sb-full-disk-'));
const mountSkip = mountTmpfs(root, '24m');

function mountTmpfs(dir: string, size: string): string | undefined {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0700`, 'tmpfs', dir], { stdio: 'pipe' });
    return undefined;
  } catch (error) {
    rmdirSync(dir);
    return `a full disk needs a tmpfs mount, and mount failed (${String((error as Error).message).split('\n')[0]})`;
  }
}

/** Writes zeros until the file system has no byte left, in ever smaller pieces. */
function fillDisk(path: string): void {
  const fd = openSync(path, 'a');
  try {
    for (const size of [1024 * 1024, 4096, 1]) {
      const chunk = Buffer.alloc(size);
      for (;;) {
        try {
          writeSync(fd, chunk);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === 'ENOSPC') break;
          throw error;
        }
      }
    }
  } finally {
    closeSync(fd);
  }
}

function serve(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['src/main.ts', 'serve'], { env: { PATH: process.env.PATH ?? '', ...env } });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

describe('a full DATA_DIR', { skip: mountSkip }, () => {
  const dataDir = join(root, 'data');
  const filler = join(root, 'filler');
  const logLines: string[] = [];
  let gw: TestGateway;

  before(async () => {
    gw = await startTestGateway('embedded', { env: { DATA_DIR: dataDir }, logLines });
  });
  after(async () => {
    rmSync(filler, { force: true });
    await gw?.close();
    if (!mountSkip) {
      execFileSync('umount', [root]);
      rmdirSync(root);
    }
  });

  test('writes answer 507 with Retry-After and say the store is full, /readyz turns 503, the log says so once; with room again all is well', async () => {
    const { userId, key } = await gw.createUser(500);
    assert.equal((await gw.api(undefined, 'GET', '/readyz')).status, 200);
    fillDisk(filler);

    // SQLite may still find room in pages it holds; the writes that need more must be refused as 507.
    const statuses: number[] = [];
    let refused: { status: number; body: unknown; headers: Headers } | undefined;
    for (let i = 0; i < 2_000 && statuses.filter((s) => s === 507).length < 20; i++) {
      const res = await fetch(`${gw.url}/admin/v1/users/${userId}/credits`, {
        method: 'POST',
        headers: { authorization: `Bearer ${gw.env.ADMIN_TOKEN}`, 'content-type': 'application/json', 'idempotency-key': `fill-${i}` },
        body: JSON.stringify({ amountCents: 1, note: 'x'.repeat(500) }),
      });
      statuses.push(res.status);
      if (res.status === 507) refused = { status: res.status, body: await res.json(), headers: res.headers };
      else await res.arrayBuffer();
    }
    assert.ok(refused, `some write met the full disk (statuses ${[...new Set(statuses)].join(', ')})`);
    assert.deepEqual(statuses.filter((s) => s !== 200 && s !== 201 && s !== 400 && s !== 507), [], 'no 500: every answer is a success or "the store is full"');
    const body = refused.body as { code: number; error: { code: string; message: string } };
    assert.equal(body.code, 507);
    assert.equal(body.error.code, 'storage_full');
    assert.match(body.error.message, /store is full/);
    assert.ok(Number(refused.headers.get('retry-after')) > 0, 'a Retry-After');

    // The chat path (its ledger writes on a thread of their own) says the same, in its protocol's shape.
    const chats: Array<{ status: number; body: unknown }> = [];
    for (let i = 0; i < 5; i++) chats.push(await gw.api(key, 'POST', '/api/v1/chat/completions', { model: 'gpt-5.4-mini', max_tokens: 5, messages: [{ role: 'user', content: `hi ${i}` }] }));
    assert.deepEqual(chats.map((c) => c.status).filter((s) => s !== 200 && s !== 507), [], 'no chat answered 500');
    const chatRefusal = chats.find((c) => c.status === 507)?.body as { error: { code: string } } | undefined;
    assert.equal(chatRefusal?.error.code, 'storage_full', 'a chat that cannot hold its cost is refused as storage_full');

    // A local file write is an outage of the store: workers wait for it (a finished result is kept, not refunded).
    const blobWrite = await gw.gateway.services.blobs.put(newBlobKey('task_full', 0, 'png'), Buffer.alloc(256 * 1024), 'image/png').then(
      () => undefined,
      (error: unknown) => error,
    );
    assert.equal(unavailableDependency(blobWrite)?.dependency, 'storage', String(blobWrite));
    assert.equal(toAppError(blobWrite).status, 507);

    const ready = await gw.api(undefined, 'GET', '/readyz');
    assert.equal(ready.status, 503);
    assert.match(String((ready.body as { checks: Record<string, string> }).checks.disk), new RegExp(`DATA_DIR ${dataDir} is full`));
    const fullLines = logLines.filter((line) => line.includes('the store is full'));
    assert.equal(fullLines.length, 1, 'said once in the log, however many requests were refused');
    assert.equal(logLines.filter((line) => line.includes('"level":50') && line.includes('request failed')).length, 0, 'no request logged as an internal error');

    rmSync(filler);
    assert.equal((await gw.api(undefined, 'GET', '/readyz')).status, 200, 'ready again once there is room');
    const credit = await fetch(`${gw.url}/admin/v1/users/${userId}/credits`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gw.env.ADMIN_TOKEN}`, 'content-type': 'application/json', 'idempotency-key': 'after-the-fill' },
      body: JSON.stringify({ amountCents: 1 }),
    });
    assert.ok(credit.status < 300, `a write succeeds again (${credit.status})`);
  });

  test('a start on the full disk refuses with a sentence naming DATA_DIR and its free space', async () => {
    await gw.close();
    fillDisk(filler);
    const started = await serve({ DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', SWITCHBOARD_DEMO_USER: '0' });
    assert.equal(started.code, 2, started.stderr);
    assert.match(started.stderr, new RegExp(`DATA_DIR: ${dataDir} is on a full disk: \\d+ bytes free`));
    assert.doesNotMatch(started.stderr, /SQL logic error|at .*\.ts:\d+/, 'a sentence, not a stack trace');
  });
});
