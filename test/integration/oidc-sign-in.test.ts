import assert from 'node:assert/strict';
import { after, beforeEach, test } from 'node:test';
import { type FakeOidcProvider, startFakeOidcProvider } from '../fakes/oidc-provider.fake.ts';
import { describeEachMode, type TestGateway } from '../support/gateway.ts';

/**
 * Single sign-on against a real OpenID Connect server (panva's oidc-provider, run here): what signs in
 * and links, and what is refused (wrong state, another browser, a replayed code, a forged, unsigned
 * or replayed id token, an unverified email), with no session cookie in any refused case.
 */
const idp: FakeOidcProvider = await startFakeOidcProvider();
after(() => idp.close());

/** The gateways' log lines: refusals say why, and no line holds a code or a token. */
const logs: string[] = [];

let counter = 0;
const unique = (name: string) => `${name}.${process.pid}.${Date.now()}.${counter++}`;

/** A browser: cookies per origin, redirects followed by hand so each hop can be seen. */
class Browser {
  readonly jars = new Map<string, Map<string, string>>();
  /** Every session cookie the gateway set (a refused sign-in must set none). */
  readonly sessionCookies: string[] = [];

  cookieHeader(url: URL): string | undefined {
    const jar = this.jars.get(url.origin);
    return jar && jar.size > 0 ? [...jar].map(([k, v]) => `${k}=${v}`).join('; ') : undefined;
  }

  async get(url: string): Promise<{ status: number; location: string | undefined; body: string }> {
    const target = new URL(url);
    const cookie = this.cookieHeader(target);
    const response = await fetch(target, { redirect: 'manual', headers: cookie ? { cookie } : {} });
    for (const line of response.headers.getSetCookie()) {
      const [pair = '', ...attributes] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const jar = this.jars.get(target.origin) ?? new Map<string, string>();
      this.jars.set(target.origin, jar);
      const gone = value === '' || attributes.some((a) => /^\s*max-age=0\s*$/i.test(a));
      if (gone) jar.delete(name);
      else jar.set(name, value);
      if (name === 'sb_session' && !gone) this.sessionCookies.push(value);
    }
    const location = response.headers.get('location') ?? undefined;
    return { status: response.status, location: location ? new URL(location, target).toString() : undefined, body: await response.text() };
  }

  /** Follows redirects from `url` until `stop` says so (given the next URL) or a page answers. */
  async follow(url: string, stop: (next: URL) => boolean): Promise<string> {
    let next = url;
    for (let hop = 0; hop < 20; hop++) {
      const reply = await this.get(next);
      if (!reply.location) throw new Error(`${next} answered ${reply.status} without a redirect: ${reply.body.slice(0, 300)}`);
      if (stop(new URL(reply.location))) return reply.location;
      next = reply.location;
    }
    throw new Error('too many redirects');
  }
}

describeEachMode('single sign-on with OpenID Connect', (ctx) => {
  const gwOrigin = () => new URL(ctx.gw.url).origin;
  const callbackUrl = () => `${ctx.gw.url}/api/v1/auth/oidc/acme/callback`;
  const startUrl = () => `${ctx.gw.url}/api/v1/auth/oidc/acme/start`;
  /** Lands back at the gateway after the callback: the dashboard, or the sign-in page with a reason. */
  const backAtGateway = (url: URL) => url.origin === gwOrigin() && !url.pathname.startsWith('/api/');
  const atCallback = (url: URL) => url.origin === gwOrigin() && url.pathname === '/api/v1/auth/oidc/acme/callback';

  beforeEach(() => {
    idp.useRedirectUri(callbackUrl());
    idp.tamper = undefined;
  });

  const person = (verified = true, email = `${unique('sso')}@example.com`) => {
    const sub = unique('sub');
    idp.accounts.set(sub, { sub, email, email_verified: verified });
    idp.signInAs(sub);
    return { sub, email };
  };

  async function whoAmI(gw: TestGateway, browser: Browser): Promise<{ id: string; email: string; hasPassword: boolean } | undefined> {
    const cookie = browser.cookieHeader(new URL(gw.url));
    const res = await fetch(`${gw.url}/api/v1/auth/session`, { headers: cookie ? { cookie } : {} });
    if (res.status !== 200) return undefined;
    return ((await res.json()) as { data: { user: { id: string; email: string; hasPassword: boolean } } }).data.user;
  }

  async function refusedWith(browser: Browser, landing: string, reason: string): Promise<void> {
    const url = new URL(landing);
    assert.equal(url.pathname, '/login', landing);
    assert.equal(url.searchParams.get('sso_error'), reason, landing);
    assert.deepEqual(browser.sessionCookies, [], 'a refused sign-in sets no session cookie');
    assert.equal(await whoAmI(ctx.gw, browser), undefined);
  }

  test('the sign-in page learns the configured providers', async () => {
    const res = await fetch(`${ctx.gw.url}/api/v1/auth/oidc/providers`);
    assert.equal(res.status, 200);
    assert.deepEqual(((await res.json()) as { data: unknown }).data, [{ name: 'acme', label: 'Acme ID', startUrl: '/api/v1/auth/oidc/acme/start' }]);
  });

  test('the start sends PKCE S256, state, nonce and the openid email profile scope', async () => {
    const browser = new Browser();
    const reply = await browser.get(startUrl());
    assert.equal(reply.status, 302);
    const authorize = new URL(reply.location ?? '');
    assert.equal(authorize.origin, idp.issuer);
    const q = authorize.searchParams;
    assert.equal(q.get('response_type'), 'code');
    assert.equal(q.get('client_id'), idp.clientId);
    assert.equal(q.get('redirect_uri'), callbackUrl());
    assert.equal(q.get('scope'), 'openid email profile');
    assert.equal(q.get('code_challenge_method'), 'S256');
    assert.match(q.get('code_challenge') ?? '', /^[A-Za-z0-9_-]{43}$/);
    assert.match(q.get('state') ?? '', /^[A-Za-z0-9_-]{43}$/);
    assert.match(q.get('nonce') ?? '', /^[A-Za-z0-9_-]{43}$/);
    assert.ok(browser.jars.get(gwOrigin())?.has('sb_sso'), 'the start binds the sign-in to this browser');
  });

  test('a first sign-in opens an account, a second signs in the same user', async () => {
    const { email } = person();
    const first = new Browser();
    const landing = await first.follow(startUrl(), backAtGateway);
    assert.equal(new URL(landing).pathname, '/', landing);
    assert.equal(first.sessionCookies.length, 1);
    assert.equal(first.jars.get(gwOrigin())?.has('sb_sso'), false, 'the binding cookie is cleared beside the session cookie');
    const user = await whoAmI(ctx.gw, first);
    assert.equal(user?.email, email);
    assert.equal(user?.hasPassword, false);

    const second = new Browser();
    assert.equal(new URL(await second.follow(startUrl(), backAtGateway)).pathname, '/');
    assert.equal((await whoAmI(ctx.gw, second))?.id, user?.id);
  });

  test('an account that signed up with a password is linked by the same verified email', async () => {
    const email = `${unique('pw')}@example.com`;
    const signup = await fetch(`${ctx.gw.url}/api/v1/auth/signup`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: 'correct horse battery' }) });
    assert.equal(signup.status, 200);
    const userId = ((await signup.json()) as { data: { user: { id: string } } }).data.user.id;
    person(true, email.toUpperCase());
    const browser = new Browser();
    assert.equal(new URL(await browser.follow(startUrl(), backAtGateway)).pathname, '/');
    const user = await whoAmI(ctx.gw, browser);
    assert.equal(user?.id, userId);
    assert.equal(user?.hasPassword, true);
  });

  test('a wrong state is refused, and so is the right one from another browser, which cannot spend it', async () => {
    person();
    const browser = new Browser();
    const callback = new URL(await browser.follow(startUrl(), atCallback));
    const forged = new URL(callback);
    forged.searchParams.set('state', `${callback.searchParams.get('state')?.slice(0, -2)}xx`);
    await refusedWith(browser, (await browser.get(forged.toString())).location ?? '', 'state');

    const other = new Browser();
    await refusedWith(other, (await other.get(callback.toString())).location ?? '', 'state');

    // Neither spent it: the browser that started the sign-in still finishes it.
    assert.equal(new URL((await browser.get(callback.toString())).location ?? '').pathname, '/');
    assert.equal(browser.sessionCookies.length, 1);
  });

  test('a replayed code is refused: by our single-use state, and by the provider under a fresh state', async () => {
    person();
    const browser = new Browser();
    const callback = await browser.follow(startUrl(), atCallback);
    const first = await browser.get(callback);
    assert.equal(new URL(first.location ?? '').pathname, '/');
    assert.equal(browser.sessionCookies.length, 1);

    const replayer = new Browser();
    const started = await replayer.follow(startUrl(), atCallback);
    await refusedWith(replayer, (await replayer.get(callback)).location ?? '', 'state');

    // The replayer's own state is good, the old code is not: the provider refuses it.
    const fresh = new Browser();
    const freshCallback = new URL(await fresh.follow(startUrl(), atCallback));
    const replay = new URL(freshCallback);
    replay.searchParams.set('code', new URL(callback).searchParams.get('code') ?? '');
    const before = idp.tokenRequests;
    await refusedWith(fresh, (await fresh.get(replay.toString())).location ?? '', 'code');
    assert.equal(idp.tokenRequests, before + 1, 'the provider was asked and refused');
    void started;
  });

  for (const [how, what, why] of [
    ['resign', 'signed with a key the provider never published', 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED'],
    ['none', 'unsigned (alg none)', 'ERR_JOSE_ALG_NOT_ALLOWED'],
    ['nonce', "carrying another sign-in's nonce", 'another nonce'],
  ] as const) {
    test(`an id token ${what} is refused`, async () => {
      person();
      idp.tamper = how;
      const browser = new Browser();
      const callback = await browser.follow(startUrl(), atCallback);
      const from = logs.length;
      await refusedWith(browser, (await browser.get(callback)).location ?? '', 'id_token');
      const lines = logs.slice(from).join('\n');
      assert.ok(lines.includes(why), lines);
      const code = new URL(callback).searchParams.get('code') ?? '';
      assert.ok(code.length > 10 && !lines.includes(code), 'the log holds no code');
      assert.ok(!/eyJ[A-Za-z0-9_-]{10,}\./.test(lines), 'the log holds no token');
    });
  }

  test('an unverified email is refused and opens no account', async () => {
    const { email } = person(false);
    const browser = new Browser();
    await refusedWith(browser, await browser.follow(startUrl(), backAtGateway), 'email_unverified');
    const signup = await fetch(`${ctx.gw.url}/api/v1/auth/signup`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: 'correct horse battery' }) });
    assert.equal(signup.status, 200, 'the email has no account');
  });

  test('the provider saying no, an unknown provider, and an answer from another issuer land on the sign-in page', async () => {
    person();
    const browser = new Browser();
    const callback = new URL(await browser.follow(startUrl(), atCallback));
    const denied = new URL(callbackUrl());
    denied.searchParams.set('state', callback.searchParams.get('state') ?? '');
    denied.searchParams.set('error', 'access_denied');
    await refusedWith(browser, (await browser.get(denied.toString())).location ?? '', 'denied');
    await refusedWith(browser, (await browser.get(`${ctx.gw.url}/api/v1/auth/oidc/nobody/start`)).location ?? '', 'unknown_provider');

    // RFC 9207: an answer that names another issuer is refused (a mix-up between providers).
    const mixed = new URL(await browser.follow(startUrl(), atCallback));
    assert.equal(mixed.searchParams.get('iss'), idp.issuer, 'oidc-provider names itself');
    mixed.searchParams.set('iss', 'https://evil.example.com');
    await refusedWith(browser, (await browser.get(mixed.toString())).location ?? '', 'code');
  });
}, {
  logLines: logs,
  env: {
    SWITCHBOARD_OIDC_ACME_ISSUER: idp.issuer,
    SWITCHBOARD_OIDC_ACME_CLIENT_ID: idp.clientId,
    SWITCHBOARD_OIDC_ACME_CLIENT_SECRET: idp.clientSecret,
    SWITCHBOARD_OIDC_ACME_LABEL: 'Acme ID',
  },
});
