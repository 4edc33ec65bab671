import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, test } from 'node:test';
import { createUser } from '../../src/adapters/db/stores/account-store.ts';
import { FakeSmtpServer, mailText, type ReceivedMail } from '../fakes/smtp.fake.ts';
import { describeEachMode, startTestGateway, type TestGateway } from '../support/gateway.ts';

// Issue 21, item 3: an account that signed in by link can set a password, and anyone can get back in
// by an emailed link without the operator's CLI.

const smtp = await FakeSmtpServer.start();
after(() => smtp.close());

let counter = 0;
const uniqueEmail = (name: string) => `${name}.${process.pid}.${Date.now()}.${counter++}@example.com`;

interface Browser {
  cookie?: string;
  csrf?: string;
}

async function call(gw: TestGateway, browser: Browser, method: string, path: string, body?: unknown) {
  const headers: Record<string, string> = {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (browser.cookie) headers.cookie = browser.cookie;
  if (browser.csrf) headers['x-csrf-token'] = browser.csrf;
  const response = await fetch(gw.url + path, { method, headers, redirect: 'manual', ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  const cookie = /^sb_session=([^;]*)/.exec(response.headers.get('set-cookie') ?? '')?.[1];
  if (cookie) browser.cookie = `sb_session=${cookie}`;
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: (text.startsWith('{') ? JSON.parse(text) : {}) as { data?: Record<string, unknown>; error?: { code: string; param?: string } } };
}


/** Opens the link of a mail as a browser would and returns the signed-in browser. */
async function openLink(gw: TestGateway, mail: ReceivedMail): Promise<Browser> {
  const url = /https?:\/\/\S+\/api\/v1\/auth\/link\?token=[A-Za-z0-9_-]+/.exec(mailText(mail))?.[0];
  assert.ok(url, `no link in the mail: ${mail.data}`);
  assert.ok(url.startsWith(gw.url), `the link goes to the gateway (${url})`);
  const browser: Browser = {};
  const opened = await confirmLink(gw, browser, url.slice(gw.url.length));
  assert.equal(opened.status, 200, JSON.stringify(opened.body));
  const session = await call(gw, browser, 'GET', '/api/v1/auth/session');
  assert.equal(session.status, 200);
  browser.csrf = String(session.body.data?.csrfToken);
  return browser;
}

/**
 * A link as the dashboard opens it: the GET signs nothing in and sends the browser to the page that
 * asks, with the token in the fragment; confirming there POSTs it.
 */
async function confirmLink(gw: TestGateway, browser: Browser, path: string) {
  const opened = await call(gw, browser, 'GET', path);
  assert.equal(opened.status, 302);
  assert.equal(opened.headers.get('set-cookie'), null, 'opening a link signs nobody in');
  const location = opened.headers.get('location') ?? '';
  assert.match(location, /^\/login\/link#token=/);
  const token = decodeURIComponent(location.slice('/login/link#token='.length));
  return call(gw, browser, 'POST', '/api/v1/auth/link', { token });
}

async function passwordlessUser(gw: TestGateway): Promise<string> {
  const email = uniqueEmail('linked');
  await createUser(gw.gateway.services.database.db, { email });
  return email;
}

async function askForLink(gw: TestGateway, email: string) {
  return call(gw, {}, 'POST', '/api/v1/auth/sign-in-link', { email });
}

describeEachMode(
  'sign-in recovery: emailed links and a first password',
  (ctx) => {
    test('an account without a password gets a link by email, signs in with it, and sets a first password', async () => {
      const email = await passwordlessUser(ctx.gw);
      const asked = await askForLink(ctx.gw, email);
      assert.equal(asked.status, 202);
      assert.deepEqual(asked.body.data, { accepted: true });
      const [mail] = await smtp.mailsTo(email);
      assert.ok(mail, 'the mail went to the account');
      assert.match(mail.data, /^Subject: Your Switchboard sign-in link$/m);
      const browser = await openLink(ctx.gw, mail);
      const session = await call(ctx.gw, browser, 'GET', '/api/v1/auth/session');
      assert.equal((session.body.data?.user as { hasPassword?: boolean } | undefined)?.hasPassword, false);

      const withCurrent = await call(ctx.gw, browser, 'POST', '/api/v1/auth/password', { currentPassword: 'anything at all', newPassword: 'a first passphrase' });
      assert.equal(withCurrent.status, 400);
      assert.equal(withCurrent.body.error?.param, 'currentPassword');
      const set = await call(ctx.gw, browser, 'POST', '/api/v1/auth/password', { newPassword: 'a first passphrase' });
      assert.equal(set.status, 200, JSON.stringify(set.body));
      const after = await call(ctx.gw, browser, 'GET', '/api/v1/auth/session');
      assert.equal((after.body.data?.user as { hasPassword?: boolean } | undefined)?.hasPassword, true);

      // Now a password exists: it is needed to change it, and it signs in.
      const without = await call(ctx.gw, browser, 'POST', '/api/v1/auth/password', { newPassword: 'another passphrase' });
      assert.equal(without.status, 409);
      assert.equal(without.body.error?.param, 'currentPassword');
      const login = await call(ctx.gw, {}, 'POST', '/api/v1/auth/login', { email, password: 'a first passphrase' });
      assert.equal(login.status, 200);
    });

    test('a link works once', async () => {
      const email = await passwordlessUser(ctx.gw);
      assert.equal((await askForLink(ctx.gw, email)).status, 202);
      const [mail] = await smtp.mailsTo(email);
      assert.ok(mail);
      await openLink(ctx.gw, mail);
      const url = /\/api\/v1\/auth\/link\?token=[A-Za-z0-9_-]+/.exec(mailText(mail))?.[0] ?? '';
      const again = await confirmLink(ctx.gw, {}, url);
      assert.equal(again.status, 401);
      assert.equal(again.body.error?.code, 'unauthorized');
    });

    test('a link signs in only when the page that asks POSTs it from this origin (no login CSRF)', async () => {
      const email = await passwordlessUser(ctx.gw);
      assert.equal((await askForLink(ctx.gw, email)).status, 202);
      const [mail] = await smtp.mailsTo(email);
      assert.ok(mail);
      const url = /\/api\/v1\/auth\/link\?token=[A-Za-z0-9_-]+/.exec(mailText(mail))?.[0] ?? '';
      const token = new URL(url, ctx.gw.url).searchParams.get('token') ?? '';
      // Opened from another site's page or an image tag: a redirect, no cookie, the link still unused.
      for (let i = 0; i < 2; i++) {
        const opened = await call(ctx.gw, {}, 'GET', url);
        assert.equal(opened.status, 302);
        assert.equal(opened.headers.get('set-cookie'), null);
      }
      // Another site's script or form POSTing it: refused, the link still unused.
      const foreign = await fetch(`${ctx.gw.url}/api/v1/auth/link`, { method: 'POST', headers: { 'content-type': 'application/json', origin: 'https://evil.example' }, body: JSON.stringify({ token }) });
      assert.equal(foreign.status, 403);
      assert.equal(foreign.headers.get('set-cookie'), null);
      const form = await fetch(`${ctx.gw.url}/api/v1/auth/link`, { method: 'POST', headers: { 'content-type': 'text/plain', origin: ctx.gw.url }, body: JSON.stringify({ token }) });
      assert.ok(form.status >= 400 && form.status < 500, `a text/plain body (what a form can send) is refused: ${form.status}`);
      assert.equal(form.headers.get('set-cookie'), null);
      const browser: Browser = {};
      const confirmed = await call(ctx.gw, browser, 'POST', '/api/v1/auth/link', { token });
      assert.equal(confirmed.status, 200, JSON.stringify(confirmed.body));
      assert.equal((confirmed.body.data?.user as { email?: string } | undefined)?.email, email);
      assert.ok(browser.cookie, 'the confirmation sets the session cookie');
    });

    test('an address without an account gets the same answer and no mail', async () => {
      const unknown = uniqueEmail('nobody');
      const known = await passwordlessUser(ctx.gw);
      const a = await askForLink(ctx.gw, unknown);
      const b = await askForLink(ctx.gw, known);
      assert.equal(a.status, b.status);
      assert.deepEqual(a.body, b.body);
      await smtp.mailsTo(known);
      await ctx.gw.gateway.services.signInLinks.settled();
      assert.ok(!smtp.received.some((m) => m.to.includes(unknown)), 'nothing was sent to an address without an account');
    });

    test('two first passwords set at once: one wins, the other is told to change it', async () => {
      const email = await passwordlessUser(ctx.gw);
      await askForLink(ctx.gw, email);
      await askForLink(ctx.gw, email);
      const mails = await smtp.mailsTo(email, 2);
      assert.equal(mails.length, 2);
      const [first, second] = await Promise.all(mails.map((m) => openLink(ctx.gw, m)));
      assert.ok(first && second);
      const answers = await Promise.all([
        call(ctx.gw, first, 'POST', '/api/v1/auth/password', { newPassword: 'passphrase number one' }),
        call(ctx.gw, second, 'POST', '/api/v1/auth/password', { newPassword: 'passphrase number two' }),
      ]);
      assert.deepEqual(answers.map((a) => a.status).sort(), [200, 409]);
      const winner = answers[0]?.status === 200 ? 'passphrase number one' : 'passphrase number two';
      assert.equal((await call(ctx.gw, {}, 'POST', '/api/v1/auth/login', { email, password: winner })).status, 200);
    });

    test('a mailbox gets at most three links an hour, whoever asks', async () => {
      const email = await passwordlessUser(ctx.gw);
      for (let i = 0; i < 3; i++) assert.equal((await askForLink(ctx.gw, email)).status, 202);
      const refused = await askForLink(ctx.gw, email);
      assert.equal(refused.status, 429);
      assert.equal(refused.body.error?.code, 'rate_limited');
      assert.ok(Number(refused.headers.get('retry-after')) >= 1);
    });

    test('a mail server that refuses the message changes nothing for the answer; the next link goes out', async () => {
      const email = await passwordlessUser(ctx.gw);
      smtp.failOnceFor.add(email);
      assert.equal((await askForLink(ctx.gw, email)).status, 202);
      await ctx.gw.gateway.services.signInLinks.settled();
      assert.equal(smtp.received.filter((m) => m.to.includes(email)).length, 0);
      assert.equal((await askForLink(ctx.gw, email)).status, 202);
      assert.equal((await smtp.mailsTo(email)).length, 1);
    });

    test('not an address: a 400 naming the field', async () => {
      const res = await askForLink(ctx.gw, 'not-an-address');
      assert.equal(res.status, 400);
      assert.equal(res.body.error?.param, 'email');
    });

    test('the CLI prints a link to where serve answers, not to the default port', async () => {
      const email = await passwordlessUser(ctx.gw);
      const env: Record<string, string> = { PATH: process.env.PATH ?? '', ...ctx.gw.env, PORT: '1' };
      delete env.PUBLIC_BASE_URL;
      const cli = spawnSync(process.execPath, ['src/main.ts', 'users', 'sign-in-link', email], { env, encoding: 'utf8' });
      assert.equal(cli.status, 0, cli.stderr);
      const printed = JSON.parse(cli.stdout) as { url: string };
      assert.ok(printed.url.startsWith(`${ctx.gw.url}/api/v1/auth/link?token=`), printed.url);
      const browser: Browser = {};
      assert.equal((await confirmLink(ctx.gw, browser, printed.url.slice(ctx.gw.url.length))).status, 200);
      assert.ok(browser.cookie);
    });
  },
  // Every test asks from 127.0.0.1: the per-address limit is raised so that only the per-mailbox one is tested.
  { env: { SMTP_URL: smtp.url, MAIL_FROM: 'Switchboard <no-reply@example.test>' }, configFile: { limits: { signInLinksPerAddress: { max: 1000, windowSeconds: 3600 } } } },
);

test('without SMTP_URL the link is written to the log (embedded)', async () => {
  const lines: string[] = [];
  const gw = await startTestGateway('embedded', { logLines: lines });
  try {
    const email = await passwordlessUser(gw);
    assert.equal((await askForLink(gw, email)).status, 202);
    await gw.gateway.services.signInLinks.settled();
    const line = lines.find((l) => l.includes('mail not sent') && l.includes(email));
    assert.ok(line, 'the message is in the log');
    const text = (JSON.parse(line) as { msg: string }).msg;
    const url = /\/api\/v1\/auth\/link\?token=[A-Za-z0-9_-]+/.exec(text)?.[0];
    assert.ok(url);
    assert.equal((await confirmLink(gw, {}, url)).status, 200);
  } finally {
    await gw.close();
  }
});
