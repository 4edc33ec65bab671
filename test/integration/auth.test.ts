import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { hashSessionToken } from '../../src/services/auth/auth.service.ts';
import { ADMIN_TOKEN, describeEachMode, type TestGateway } from '../support/gateway.ts';
import { type Browser, call, signup, uniqueEmail } from '../support/session-browser.ts';

describeEachMode('dashboard accounts and sessions', (ctx) => {
  test('sign-up sets an HttpOnly, SameSite=Lax session cookie and starts at balance 0', async () => {
    const email = uniqueEmail('Ann');
    const browser: Browser = { cookie: undefined, csrf: undefined };
    const res = await call(ctx.gw, browser, 'POST', '/api/v1/auth/signup', { email: `  ${email.toUpperCase()} `, password: 'a long enough password' });
    assert.equal(res.status, 200);
    const cookie = res.headers.get('set-cookie') ?? '';
    assert.match(cookie, /^sb_session=[A-Za-z0-9_-]{43}; Path=\/; Max-Age=\d+; HttpOnly; SameSite=Lax$/);
    assert.equal(res.headers.get('cache-control'), 'no-store');
    const data = res.body.data as { user: { email: string; balance: number; isAdmin: boolean }; csrfToken: string; expiresAt: string };
    assert.equal(data.user.email, email.toLowerCase());
    assert.equal(data.user.balance, 0);
    assert.equal(data.user.isAdmin, false);
    assert.ok(data.csrfToken.length >= 32);

    const session = await call(ctx.gw, browser, 'GET', '/api/v1/auth/session');
    assert.equal(session.status, 200);
    assert.equal((session.body.data as { csrfToken: string }).csrfToken, data.csrfToken);
    const me = await call(ctx.gw, browser, 'GET', '/api/v1/user/me');
    assert.equal(me.status, 200);
    assert.equal((me.body.data as { email: string }).email, email.toLowerCase());
  });

  test('a client that is not a configured proxy cannot claim HTTPS: the cookie follows the real scheme', async () => {
    const res = await call(ctx.gw, { cookie: undefined, csrf: undefined }, 'POST', '/api/v1/auth/signup', { email: uniqueEmail('secure'), password: 'another long password' }, {
      headers: { 'x-forwarded-proto': 'https' },
    });
    assert.equal(res.status, 200);
    assert.doesNotMatch(res.headers.get('set-cookie') ?? '', /Secure/);
  });

  test('the password is stored as an Argon2id hash, never in clear', async () => {
    const user = await signup(ctx.gw, uniqueEmail('hash'), 'my secret passphrase');
    const row = await ctx.gw.gateway.services.database.db.selectFrom('users').select('password_hash').where('id', '=', user.userId).executeTakeFirstOrThrow();
    assert.match(row.password_hash ?? '', /^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
    assert.ok(!(row.password_hash ?? '').includes('my secret passphrase'));
  });

  test('sign-up refuses a taken email, a bad email and a short password, naming the field', async () => {
    const user = await signup(ctx.gw);
    const again = await call(ctx.gw, undefined, 'POST', '/api/v1/auth/signup', { email: user.email, password: 'whatever password' });
    assert.equal(again.status, 409);
    const bad = await call(ctx.gw, undefined, 'POST', '/api/v1/auth/signup', { email: 'not-an-email', password: 'whatever password' });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error?.param, 'email');
    const short = await call(ctx.gw, undefined, 'POST', '/api/v1/auth/signup', { email: uniqueEmail('short'), password: 'short' });
    assert.equal(short.status, 400);
    assert.equal(short.body.error?.param, 'password');
  });

  test('sign-in: a wrong password and an unknown email get the same 401; the right one signs in', async () => {
    const user = await signup(ctx.gw);
    const wrong = await call(ctx.gw, undefined, 'POST', '/api/v1/auth/login', { email: user.email, password: 'not the password' });
    const unknown = await call(ctx.gw, undefined, 'POST', '/api/v1/auth/login', { email: uniqueEmail('nobody'), password: 'not the password' });
    assert.equal(wrong.status, 401);
    assert.equal(unknown.status, 401);
    assert.equal((wrong.body.error as { message: string } | undefined)?.message, (unknown.body.error as { message: string } | undefined)?.message);
    const browser: Browser = { cookie: undefined, csrf: undefined };
    const ok = await call(ctx.gw, browser, 'POST', '/api/v1/auth/login', { email: user.email.toUpperCase(), password: user.password });
    assert.equal(ok.status, 200);
    assert.ok(browser.cookie);
    assert.notEqual(browser.cookie, user.cookie, 'each sign-in is its own session');
  });

  test('failed sign-ins from one address for one email slow down (429 with a growing Retry-After)', async () => {
    const user = await signup(ctx.gw);
    for (let i = 0; i < 5; i++) {
      assert.equal((await call(ctx.gw, undefined, 'POST', '/api/v1/auth/login', { email: user.email, password: `wrong ${i} password` })).status, 401);
    }
    // Five are free; then the pair must wait before each attempt (1 s, then 2 s, …), the right password included.
    const limited = await call(ctx.gw, undefined, 'POST', '/api/v1/auth/login', { email: user.email, password: user.password });
    assert.equal(limited.status, 429);
    assert.equal(limited.body.error?.code, 'rate_limited');
    assert.ok(Number(limited.headers.get('retry-after')) > 0);
  });

  test('a cross-site sign-in is refused by its Origin', async () => {
    const user = await signup(ctx.gw);
    const res = await call(ctx.gw, undefined, 'POST', '/api/v1/auth/login', { email: user.email, password: user.password }, { headers: { origin: 'https://evil.example' } });
    assert.equal(res.status, 403);
    const same = await call(ctx.gw, undefined, 'POST', '/api/v1/auth/login', { email: user.email, password: user.password }, { headers: { origin: ctx.gw.url } });
    assert.equal(same.status, 200);
  });

  test('CSRF: unsafe requests with the cookie need the session token; safe ones do not', async () => {
    const user = await signup(ctx.gw);
    const missing = await call(ctx.gw, user, 'POST', '/api/v1/keys', { name: 'no csrf' }, { csrf: false });
    assert.equal(missing.status, 403);
    assert.equal(missing.body.error?.code, 'forbidden');
    const wrong = await call(ctx.gw, user, 'POST', '/api/v1/keys', { name: 'wrong csrf' }, { csrf: 'x'.repeat(32) });
    assert.equal(wrong.status, 403);
    const other = await signup(ctx.gw);
    const borrowed = await call(ctx.gw, user, 'POST', '/api/v1/keys', { name: 'another session token' }, { csrf: other.csrf ?? '' });
    assert.equal(borrowed.status, 403, "another session's token does not do");
    assert.equal((await call(ctx.gw, user, 'GET', '/api/v1/keys', undefined, { csrf: false })).status, 200);

    const created = await call(ctx.gw, user, 'POST', '/api/v1/keys', { name: 'from the dashboard' });
    assert.equal(created.status, 200);
    const key = (created.body.data as { key: string; id: string }).key;
    assert.equal((await ctx.gw.api(key, 'GET', '/api/v1/user/me')).status, 200);
    const revoked = await call(ctx.gw, user, 'DELETE', `/api/v1/keys/${(created.body.data as { id: string }).id}`);
    assert.equal(revoked.status, 200);
    assert.equal((await ctx.gw.api(key, 'GET', '/api/v1/user/me')).status, 401);
  });

  test('a session acts only as its own user', async () => {
    const alice = await signup(ctx.gw);
    const bob = await ctx.gw.createUser(100);
    const bobKeys = (await ctx.gw.api(bob.key, 'GET', '/api/v1/keys')).body as { data: Array<{ id: string }> };
    const steal = await call(ctx.gw, alice, 'DELETE', `/api/v1/keys/${bobKeys.data[0]?.id}`);
    assert.equal(steal.status, 404);
    assert.equal((await ctx.gw.api(bob.key, 'GET', '/api/v1/user/me')).status, 200);
    const aliceList = await call(ctx.gw, alice, 'GET', '/api/v1/generations');
    assert.equal(aliceList.status, 200);
    // Bob's key with Alice's cookie: the key decides, the cookie is ignored.
    const both = await call(ctx.gw, alice, 'GET', '/api/v1/user/me', undefined, { headers: { authorization: `Bearer ${bob.key}` } });
    assert.equal((both.body.data as { id: string }).id, bob.userId);
  });

  test('the API key path is unchanged: a bad key is a 401 even with a valid cookie', async () => {
    const user = await signup(ctx.gw);
    const res = await call(ctx.gw, user, 'GET', '/api/v1/user/me', undefined, { headers: { authorization: 'Bearer sb_thisIsNotARealKeyButLongEnough0123456' } });
    assert.equal(res.status, 401);
    const { key } = await ctx.gw.createUser(5);
    const plain = await ctx.gw.api(key, 'POST', '/api/v1/keys', { name: 'no csrf needed with a key' });
    assert.equal(plain.status, 200);
    const none = await ctx.gw.api(undefined, 'GET', '/api/v1/user/me');
    assert.equal(none.status, 401);
  });

  test('a forged or unknown cookie is a 401', async () => {
    for (const cookie of ['sb_session=forged', `sb_session=${'A'.repeat(43)}`]) {
      const res = await call(ctx.gw, { cookie, csrf: undefined }, 'GET', '/api/v1/user/me');
      assert.equal(res.status, 401);
    }
  });

  test('sign-out ends the session everywhere and clears the cookie', async () => {
    const user = await signup(ctx.gw);
    const saved = user.cookie;
    const noCsrf = await call(ctx.gw, user, 'POST', '/api/v1/auth/logout', undefined, { csrf: false });
    assert.equal(noCsrf.status, 403);
    const out = await call(ctx.gw, user, 'POST', '/api/v1/auth/logout');
    assert.equal(out.status, 200);
    assert.equal(user.cookie, undefined, 'the cookie is cleared');
    const replay = await call(ctx.gw, { cookie: saved, csrf: user.csrf }, 'GET', '/api/v1/user/me');
    assert.equal(replay.status, 401, 'the old cookie no longer works');
  });

  test('password change needs the current password and signs out the other sessions', async () => {
    const user = await signup(ctx.gw);
    const laptop: Browser = { cookie: undefined, csrf: undefined };
    const login = await call(ctx.gw, laptop, 'POST', '/api/v1/auth/login', { email: user.email, password: user.password });
    laptop.csrf = (login.body.data as { csrfToken: string }).csrfToken;

    const wrong = await call(ctx.gw, user, 'POST', '/api/v1/auth/password', { currentPassword: 'not it at all', newPassword: 'a brand new password' });
    assert.equal(wrong.status, 403);
    assert.equal(wrong.body.error?.param, 'currentPassword');
    const short = await call(ctx.gw, user, 'POST', '/api/v1/auth/password', { currentPassword: user.password, newPassword: 'short' });
    assert.equal(short.status, 400);
    const noCsrf = await call(ctx.gw, user, 'POST', '/api/v1/auth/password', { currentPassword: user.password, newPassword: 'a brand new password' }, { csrf: false });
    assert.equal(noCsrf.status, 403);

    const ok = await call(ctx.gw, user, 'POST', '/api/v1/auth/password', { currentPassword: user.password, newPassword: 'a brand new password' });
    assert.equal(ok.status, 200);
    assert.equal((ok.body.data as { otherSessionsEnded: number }).otherSessionsEnded, 1);
    assert.equal((await call(ctx.gw, user, 'GET', '/api/v1/user/me')).status, 200, 'this session stays');
    assert.equal((await call(ctx.gw, laptop, 'GET', '/api/v1/user/me')).status, 401, 'the other one ended');
    assert.equal((await call(ctx.gw, undefined, 'POST', '/api/v1/auth/login', { email: user.email, password: user.password })).status, 401);
    assert.equal((await call(ctx.gw, undefined, 'POST', '/api/v1/auth/login', { email: user.email, password: 'a brand new password' })).status, 200);
  });

  test('sessions expire when idle, slide with use, and never outlive the absolute limit', async () => {
    const user = await signup(ctx.gw);
    const auth = ctx.gw.gateway.services.auth;
    const token = /^sb_session=(.*)$/.exec(user.cookie ?? '')?.[1] ?? '';
    const db = ctx.gw.gateway.services.database.db;
    const row = await db.selectFrom('sessions').selectAll().where('token_hash', '=', hashSessionToken(token)).executeTakeFirstOrThrow();
    const day = 24 * 3600_000;
    assert.equal(row.expires_at - row.created_at, 7 * day);
    assert.equal(row.absolute_expires_at - row.created_at, 30 * day);
    assert.equal(await auth.resolve(token, row.created_at + 8 * day), undefined, 'idle for 8 days: ended');
    // Used every 6 days, it lives on…
    let now = row.created_at;
    for (let i = 0; i < 4; i++) {
      now += 6 * day;
      assert.ok(await auth.resolve(token, now), `alive on day ${(now - row.created_at) / day}`);
    }
    // …but not past 30 days from sign-in.
    assert.equal(await auth.resolve(token, row.created_at + 30 * day + 1), undefined);
  });

  test('admin: a user session is refused by the admin API until the user is promoted', async () => {
    const user = await signup(ctx.gw);
    const before = await call(ctx.gw, user, 'GET', '/admin/v1/users');
    assert.equal(before.status, 403);
    const promoted = await ctx.gw.admin<{ isAdmin: boolean }>('PUT', `/admin/v1/users/${user.userId}/admin`, { isAdmin: true });
    assert.equal(promoted.isAdmin, true);
    const session = await call(ctx.gw, user, 'GET', '/api/v1/auth/session');
    assert.equal(((session.body.data as { user: { isAdmin: boolean } }).user).isAdmin, true);
    assert.equal((await call(ctx.gw, user, 'GET', '/admin/v1/users')).status, 200);
    const credit = (csrf: string | false) =>
      call(ctx.gw, user, 'POST', `/admin/v1/users/${user.userId}/credits`, { amountCents: 500 }, { csrf, headers: { 'idempotency-key': 'admin-session-topup' } });
    assert.equal((await credit(false)).status, 403, 'CSRF applies to the admin API too');
    assert.equal((await credit(user.csrf ?? '')).status, 200);
    assert.equal(((await call(ctx.gw, user, 'GET', '/api/v1/user/me')).body.data as { balance: number }).balance, 500);
    // The admin token keeps working; a wrong token is still a 401.
    assert.equal((await fetch(`${ctx.gw.url}/admin/v1/users`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).status, 200);
    assert.equal((await fetch(`${ctx.gw.url}/admin/v1/users`, { headers: { authorization: 'Bearer wrong' } })).status, 401);
    await ctx.gw.admin('PUT', `/admin/v1/users/${user.userId}/admin`, { isAdmin: false });
    assert.equal((await call(ctx.gw, user, 'GET', '/admin/v1/users')).status, 403, 'demotion takes effect at once');
  });

  test('the operator makes the first admin from the command line', async () => {
    const user = await signup(ctx.gw);
    const cli = spawnSync(process.execPath, ['src/main.ts', 'users', 'promote', user.email], { env: { PATH: process.env.PATH ?? '', ...ctx.gw.env }, encoding: 'utf8' });
    assert.equal(cli.status, 0, cli.stderr);
    assert.equal((JSON.parse(cli.stdout) as { isAdmin: boolean }).isAdmin, true);
    assert.equal((await call(ctx.gw, user, 'GET', '/admin/v1/providers')).status, 200);
  });
});

describeEachMode('forwarding headers are believed only from configured proxies', (ctx) => {
  test('rotating X-Forwarded-For does not escape the per-address sign-up limit', async () => {
    let limited = 0;
    for (let i = 0; i < 21; i++) {
      const res = await call(ctx.gw, { cookie: undefined, csrf: undefined }, 'POST', '/api/v1/auth/signup', { email: uniqueEmail(`xff${i}`), password: 'a long enough password' }, {
        headers: { 'x-forwarded-for': `203.0.113.${i + 1}` },
      });
      if (res.status === 429) limited += 1;
      else assert.equal(res.status, 200, JSON.stringify(res.body));
    }
    assert.equal(limited, 1, 'the 21st sign-up from the same real address is refused');
  });
});

describeEachMode(
  'behind a configured HTTPS proxy (TRUST_PROXY)',
  (ctx) => {
    test('the proxy\'s X-Forwarded-Proto makes the cookie Secure', async () => {
      const res = await call(ctx.gw, { cookie: undefined, csrf: undefined }, 'POST', '/api/v1/auth/signup', { email: uniqueEmail('proxied'), password: 'another long password' }, {
        headers: { 'x-forwarded-proto': 'https' },
      });
      assert.equal(res.status, 200);
      assert.match(res.headers.get('set-cookie') ?? '', /; Secure$/);
    });
  },
  { env: { TRUST_PROXY: 'loopback' } },
);

describeEachMode(
  'failed sign-ins never lock the owner out (TRUST_PROXY, so addresses can differ)',
  (ctx) => {
    test('ten wrong passwords from one address slow that address; the owner signs in from another at once', async () => {
      const user = await signup(ctx.gw);
      const attacker = { headers: { 'x-forwarded-for': '198.51.100.7' } };
      let refused = 0;
      for (let i = 0; i < 10; i++) {
        const res = await call(ctx.gw, undefined, 'POST', '/api/v1/auth/login', { email: user.email, password: `guess ${i} password` }, attacker);
        if (res.status === 429) refused += 1;
        else assert.equal(res.status, 401);
      }
      assert.ok(refused >= 3, `the attacker was slowed (${refused} refusals)`);
      const owner = await call(ctx.gw, undefined, 'POST', '/api/v1/auth/login', { email: user.email, password: user.password }, { headers: { 'x-forwarded-for': '203.0.113.20' } });
      assert.equal(owner.status, 200, JSON.stringify(owner.body));
    });
  },
  { env: { TRUST_PROXY: 'loopback' } },
);

describeEachMode('the first administrator from ADMIN_TOKEN', (ctx) => {
  test('a signed-in user with the token becomes an administrator; a wrong token, none, or no CSRF header change nothing', async () => {
    const user = await signup(ctx.gw);
    const wrong = await call(ctx.gw, user, 'POST', '/api/v1/auth/claim-admin', { adminToken: 'not-the-token' });
    assert.equal(wrong.status, 403);
    const noCsrf = await call(ctx.gw, user, 'POST', '/api/v1/auth/claim-admin', { adminToken: ADMIN_TOKEN }, { csrf: false });
    assert.equal(noCsrf.status, 403);
    const anonymous = await call(ctx.gw, undefined, 'POST', '/api/v1/auth/claim-admin', { adminToken: ADMIN_TOKEN });
    assert.equal(anonymous.status, 401);
    assert.equal((await call(ctx.gw, user, 'GET', '/admin/v1/users')).status, 403, 'not an administrator yet');
    const right = await call(ctx.gw, user, 'POST', '/api/v1/auth/claim-admin', { adminToken: ADMIN_TOKEN });
    assert.equal(right.status, 200, JSON.stringify(right.body));
    assert.equal((right.body.data as { isAdmin: boolean }).isAdmin, true);
    const list = await call(ctx.gw, user, 'GET', '/admin/v1/users');
    assert.equal(list.status, 200);
    const me = (list.body.data as unknown as Array<{ id: string; isAdmin: boolean }>).find((u) => u.id === user.userId);
    assert.equal(me?.isAdmin, true, 'the admin list shows the role');
  });

  test('wrong tokens from one account are slowed down', async () => {
    const user = await signup(ctx.gw);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await call(ctx.gw, user, 'POST', '/api/v1/auth/claim-admin', { adminToken: `guess-${i}` })).status);
    assert.deepEqual(statuses.slice(0, 3), [403, 403, 403]);
    assert.ok(statuses.slice(3).includes(429), `later guesses wait: ${statuses.join(',')}`);
  });
});
