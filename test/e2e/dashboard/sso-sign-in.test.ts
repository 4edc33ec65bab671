import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type FakeOidcProvider, startFakeOidcProvider } from '../../fakes/oidc-provider.fake.ts';
import { assertAccessibleBasics, browserSkipReason, pageApi } from './browser.ts';
import { type DashboardBrowser, openDashboardBrowser } from './signed-in-browser.ts';

/**
 * Single sign-on in headless Chromium: the sign-in page shows the configured provider's button, the
 * button goes through a real OpenID Connect server (oidc-provider, run here) and back signed in, and
 * a refused sign-in is told in words on the sign-in page.
 */
const skip = browserSkipReason();

describe('single sign-on in a browser', { skip }, () => {
  let idp: FakeOidcProvider;
  let dashboard: DashboardBrowser;

  before(async () => {
    idp = await startFakeOidcProvider();
    dashboard = await openDashboardBrowser({
      name: 'sso',
      gateway: {
        env: {
          SWITCHBOARD_OIDC_ACME_ISSUER: idp.issuer,
          SWITCHBOARD_OIDC_ACME_CLIENT_ID: idp.clientId,
          SWITCHBOARD_OIDC_ACME_CLIENT_SECRET: idp.clientSecret,
          SWITCHBOARD_OIDC_ACME_LABEL: 'Acme ID',
        },
      },
    });
    idp.useRedirectUri(`${dashboard.gw.url}/api/v1/auth/oidc/acme/callback`);
  });

  after(async () => {
    await dashboard?.close();
    await idp?.close();
  });

  test('"Continue with Acme ID" signs in through the provider and lands on the dashboard', async () => {
    const { page, gw } = dashboard;
    const email = `sso.e2e.${Date.now()}@example.com`;
    idp.accounts.set('e2e-person', { sub: 'e2e-person', email, email_verified: true });
    idp.signInAs('e2e-person');
    await dashboard.go(page, '/login');
    const button = page.getByRole('link', { name: 'Continue with Acme ID' });
    await button.waitFor();
    await assertAccessibleBasics(page, 'sign-in page with a provider');
    await dashboard.shootBoth(page, 'sign-in-buttons');
    await button.click();
    await page.waitForURL(`${gw.url}/`);
    const session = await pageApi<{ user: { email: string } }>(page, 'GET', '/api/v1/auth/session');
    assert.equal(session.user.email, email);
    assert.deepEqual(dashboard.pageErrors, []);
  });

  test('a refused sign-in is told on the sign-in page', async () => {
    const context = await dashboard.newContext();
    const page = await context.newPage();
    await page.goto(`${dashboard.gw.url}/login?sso_error=email_unverified`);
    await page.getByRole('alert').filter({ hasText: 'no verified email' }).waitFor();
    await context.close();
  });
});
