import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { type FakeGithub, startFakeGithub } from '../fakes/github-oauth.fake.ts';
import { describeEachMode } from '../support/gateway.ts';

/** The GitHub preset (OAuth 2 and its API, no id token): only a verified primary email signs in. */
const github: FakeGithub = await startFakeGithub();
after(() => github.close());

let counter = 0;
const unique = () => `${process.pid}${Date.now() % 1_000_000}${counter++}`;

describeEachMode('single sign-on with GitHub', (ctx) => {
  /** Start → GitHub → callback, each hop by hand; the gateway's cookies kept between them. */
  async function signIn(): Promise<{ landing: URL; sessionCookie: string | undefined }> {
    const start = await fetch(`${ctx.gw.url}/api/v1/auth/oidc/github/start`, { redirect: 'manual' });
    const binding = /sb_sso=([^;]+)/.exec(start.headers.get('set-cookie') ?? '')?.[1];
    const authorize = await fetch(start.headers.get('location') ?? '', { redirect: 'manual' });
    const callback = await fetch(authorize.headers.get('location') ?? '', { redirect: 'manual', headers: { cookie: `sb_sso=${binding}` } });
    const sessionCookie = callback.headers.getSetCookie().find((c) => c.startsWith('sb_session=') && !c.startsWith('sb_session=;'));
    return { landing: new URL(callback.headers.get('location') ?? '', ctx.gw.url), sessionCookie: sessionCookie?.split(';')[0] };
  }

  test('the verified primary email opens an account, and the same GitHub user signs in to it again', async () => {
    const email = `gh.${unique()}@example.com`;
    const id = Number(unique());
    github.signInAs({ id, emails: [{ email: `other.${unique()}@example.com`, primary: false, verified: true }, { email, primary: true, verified: true }] });
    const first = await signIn();
    assert.equal(first.landing.pathname, '/', first.landing.toString());
    const me = await fetch(`${ctx.gw.url}/api/v1/auth/session`, { headers: { cookie: first.sessionCookie ?? '' } });
    const user = ((await me.json()) as { data: { user: { id: string; email: string } } }).data.user;
    assert.equal(user.email, email);

    // The email changed at GitHub: the identity (GitHub's user id) still names the same account.
    github.signInAs({ id, emails: [{ email: `new.${email}`, primary: true, verified: true }] });
    const again = await signIn();
    const me2 = await fetch(`${ctx.gw.url}/api/v1/auth/session`, { headers: { cookie: again.sessionCookie ?? '' } });
    assert.equal(((await me2.json()) as { data: { user: { id: string } } }).data.user.id, user.id);
  });

  test('an unverified primary email is refused, even beside a verified one', async () => {
    github.signInAs({ id: Number(unique()), emails: [{ email: `p.${unique()}@example.com`, primary: true, verified: false }, { email: `s.${unique()}@example.com`, primary: false, verified: true }] });
    const refused = await signIn();
    assert.equal(refused.landing.pathname, '/login');
    assert.equal(refused.landing.searchParams.get('sso_error'), 'email_unverified');
    assert.equal(refused.sessionCookie, undefined);
  });
}, {
  env: {
    SWITCHBOARD_OIDC_GITHUB_CLIENT_ID: github.clientId,
    SWITCHBOARD_OIDC_GITHUB_CLIENT_SECRET: github.clientSecret,
    SWITCHBOARD_OIDC_GITHUB_AUTHORIZE_URL: `${github.url}/login/oauth/authorize`,
    SWITCHBOARD_OIDC_GITHUB_TOKEN_URL: `${github.url}/login/oauth/access_token`,
    SWITCHBOARD_OIDC_GITHUB_API_BASE_URL: `${github.url}/api`,
  },
});
