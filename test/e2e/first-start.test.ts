import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { freePort } from '../../bench/support/child-gateway.ts';

/**
 * What a newcomer does: start the gateway on an empty data directory, read the printed demo key, call
 * /user/me with it; then use the operator CLI on the same data.
 */
test('the first start prints a demo key that answers /user/me with USD 10; the CLI works on the same store', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sb-first-'));
  const port = await freePort();
  const env = { PATH: process.env.PATH ?? '', PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dir };
  const child = spawn(process.execPath, ['src/main.ts', 'serve'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  try {
    const deadline = Date.now() + 30_000;
    while (!/switchboard started/.test(output) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    const key = /API key \(shown once, keep it\): (sb_\S+)/.exec(output)?.[1];
    assert.ok(key, `a demo key is printed:\n${output}`);
    const me = await fetch(`http://127.0.0.1:${port}/api/v1/user/me`, { headers: { authorization: `Bearer ${key}` } });
    assert.equal(me.status, 200);
    const body = (await me.json()) as { data: { balance: number; id: string } };
    assert.equal(body.data.balance, 1000);
    const logLines = output.split('\n').filter((l) => l.startsWith('{'));
    assert.ok(logLines.length > 0);
    assert.ok(!logLines.some((l) => l.includes(key)), 'the key is printed once, never in a log line');

    // The printed one-time link signs the demo user in to the dashboard, once.
    const link = /Dashboard \(one-time sign-in link, valid 24 h\): (http\S+)/.exec(output)?.[1];
    assert.ok(link, `a sign-in link is printed:\n${output}`);
    assert.ok(!logLines.some((l) => l.includes(new URL(link).searchParams.get('token') ?? 'none')), 'the link is not in a log line');
    // Opening it signs nothing in: the dashboard page asks, and its button POSTs the token.
    const opened = await fetch(link, { redirect: 'manual' });
    assert.equal(opened.status, 302);
    assert.equal(opened.headers.get('location'), `/login/link#token=${new URL(link).searchParams.get('token')}`);
    assert.equal(opened.headers.get('set-cookie'), null);
    const confirm = (url: string) =>
      fetch(`http://127.0.0.1:${port}/api/v1/auth/link`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: new URL(url).searchParams.get('token') }) });
    const confirmed = await confirm(link);
    assert.equal(confirmed.status, 200);
    const cookie = (confirmed.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    assert.ok(cookie.includes('='), 'a session cookie is set');
    const session = await fetch(`http://127.0.0.1:${port}/api/v1/auth/session`, { headers: { cookie } });
    assert.equal(session.status, 200);
    assert.equal(((await session.json()) as { data: { user: { email: string } } }).data.user.email, 'demo@switchboard.local');
    const again = await confirm(link);
    assert.equal(again.status, 401, 'the link works once');
    assert.equal(again.headers.get('set-cookie'), null);

    const cli = (...args: string[]) => spawnSync(process.execPath, ['src/main.ts', ...args], { env, encoding: 'utf8' });
    // The used link cannot come back, but the operator can print a new one (the demo user has no password).
    assert.equal(cli('users', 'sign-in-link', 'demo@switchboard.local', '--hours', '0').status, 2);
    assert.equal(cli('users', 'sign-in-link', 'nobody@example.com').status, 1);
    const fresh = cli('users', 'sign-in-link', 'demo@switchboard.local', '--hours', '2');
    assert.equal(fresh.status, 0, fresh.stderr);
    const printed = JSON.parse(fresh.stdout) as { url: string; email: string; expiresAt: string };
    assert.equal(printed.email, 'demo@switchboard.local');
    assert.ok(Math.abs(Date.parse(printed.expiresAt) - Date.now() - 2 * 3_600_000) < 60_000, printed.expiresAt);
    assert.notEqual(printed.url, link);
    const reopened = await confirm(printed.url);
    assert.equal(reopened.status, 200);
    const freshCookie = (reopened.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const freshSession = await fetch(`http://127.0.0.1:${port}/api/v1/auth/session`, { headers: { cookie: freshCookie } });
    assert.equal(((await freshSession.json()) as { data: { user: { email: string } } }).data.user.email, 'demo@switchboard.local');
    assert.equal((await confirm(printed.url)).status, 401, 'the new link works once too');

    const credit = cli('credits', 'add', body.data.id, '--amount-cents', '250', '--idempotency-key', 'first-topup');
    assert.equal(credit.status, 0, credit.stderr);
    assert.equal((JSON.parse(credit.stdout) as { entry: { amountCents: number } }).entry.amountCents, 250);
    const after = await fetch(`http://127.0.0.1:${port}/api/v1/user/me`, { headers: { authorization: `Bearer ${key}` } });
    assert.equal(((await after.json()) as { data: { balance: number } }).data.balance, 1250);
    const verify = cli('ledger', 'verify');
    assert.equal(verify.status, 0, verify.stderr);
    assert.equal((JSON.parse(verify.stdout) as { ok: boolean }).ok, true);
    const usage = cli('keys', 'create');
    assert.equal(usage.status, 2);
    // The demo key is a management key (issue 29, item 1); the CLI makes one only when asked.
    const keys = await fetch(`http://127.0.0.1:${port}/api/v1/keys`, { headers: { authorization: `Bearer ${key}` } });
    assert.deepEqual(((await keys.json()) as { data: Array<{ manageKeys: boolean }> }).data.map((k) => k.manageKeys), [true]);
    for (const [args, manageKeys] of [[[], false], [['--manage-keys'], true]] as const) {
      const made = cli('keys', 'create', body.data.id, '--name', 'cli', ...args);
      assert.equal(made.status, 0, made.stderr);
      assert.equal((JSON.parse(made.stdout) as { manageKeys: boolean }).manageKeys, manageKeys);
    }
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a second start on the same data creates no second demo user', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sb-second-'));
  const env = { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', DATA_DIR: dir };
  try {
    for (const expectKey of [true, false]) {
      const port = await freePort();
      const child = spawn(process.execPath, ['src/main.ts', 'serve'], { env: { ...env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'inherit'] });
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString();
      });
      const deadline = Date.now() + 30_000;
      while (!/switchboard started/.test(output) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      child.kill('SIGTERM');
      const code = await new Promise((resolve) => child.once('exit', resolve));
      assert.equal(code, 0, 'a graceful shutdown exits 0');
      assert.equal(/API key/.test(output), expectKey);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
