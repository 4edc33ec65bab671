import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { verifyLedger } from '../../../src/adapters/db/ledger/ledger-checks.ts';
import { StripeFake } from '../../fakes/stripe.fake.ts';
import type { TestGateway } from '../../support/gateway.ts';
import { assertAccessibleBasics, browserSkipReason, screenshot } from './browser.ts';
import { type DashboardBrowser, openDashboardBrowser } from './signed-in-browser.ts';

/**
 * Money in, in headless Chromium against a whole gateway and a fake Stripe: an administrator creates a
 * redeem code, a user redeems it, tops up through the (fake) Stripe Checkout page and comes back
 * credited, sees every entry in the ledger with its link, and a 402 that points to the page.
 * Screenshots go to test-output/screenshots/billing-*.png.
 */
const skip = browserSkipReason();
const PASSWORD = 'a long e2e passphrase';

describe('billing in a browser', { skip }, () => {
  let dashboardBrowser: DashboardBrowser;
  let gw: TestGateway;
  let stripe: StripeFake;
  let page: Page;
  let userId = '';
  let code = '';
  let pageErrors: string[] = [];

  const go = (path: string) => dashboardBrowser.go(page, path);
  const shoot = async (name: string) => {
    dashboardBrowser.shots.push(await screenshot(page, name));
  };
  const signUp = async (email: string) => {
    await go('/signup');
    await page.getByLabel('Email', { exact: true }).fill(email);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: /sign up|create account/i }).click();
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    const session = await page.evaluate(async () => (await fetch('/api/v1/auth/session')).json());
    return (session as { data: { user: { id: string } } }).data.user.id;
  };

  before(async () => {
    stripe = await StripeFake.start();
    dashboardBrowser = await openDashboardBrowser({
      name: 'billing',
      gateway: { env: { STRIPE_API_BASE: stripe.url, STRIPE_SECRET_KEY: stripe.secretKey, STRIPE_WEBHOOK_SECRET: stripe.webhookSecret } },
      context: { viewport: { width: 1280, height: 900 } },
    });
    ({ gw, page, pageErrors } = dashboardBrowser);
    stripe.webhookUrl = `${gw.url}/api/v1/billing/webhooks/stripe`;
  });

  after(async () => {
    await dashboardBrowser?.close();
    await stripe?.close();
  });

  test('an administrator creates a redeem code, shown once', async () => {
    const adminId = await signUp(`billing.admin.${Date.now()}@example.com`);
    await gw.admin('PUT', `/admin/v1/users/${adminId}/admin`, { isAdmin: true });
    await go('/admin');
    await page.getByLabel('Amount (USD)', { exact: true }).fill('3');
    await page.getByLabel('How many users').fill('5');
    await page.getByLabel('Note', { exact: true }).fill('e2e launch');
    await page.getByRole('button', { name: 'Create code' }).click();
    code = (await page.getByTestId('created-code').textContent()) ?? '';
    assert.match(code, /^[A-Z2-9]{4}(-[A-Z2-9]{4}){3}$/);
    const row = page.getByRole('row', { name: new RegExp(`…${code.replace(/-/g, '').slice(-4)}`) });
    await row.getByText('0 / 5').waitFor();
    await assertAccessibleBasics(page, 'admin with redeem codes');
    await page.getByRole('heading', { name: 'Redeem codes' }).scrollIntoViewIfNeeded();
    await shoot('billing-01-admin-redeem-codes');
    await page.getByRole('button', { name: 'Sign out' }).first().click();
    await page.getByRole('heading', { level: 1 }).waitFor();
  });

  test('a 402 says where to add funds; the user redeems the code', async () => {
    userId = await signUp(`billing.user.${Date.now()}@example.com`);
    const refused = await page.evaluate(async () => {
      const session = (await (await fetch('/api/v1/auth/session')).json()) as { data: { csrfToken: string } };
      const res = await fetch('/api/v1/generation/create', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-csrf-token': session.data.csrfToken },
        body: JSON.stringify({ model: 'z-image-turbo', input: { prompt: 'x' } }),
      });
      return { status: res.status, body: (await res.json()) as { error: { message: string } } };
    });
    assert.equal(refused.status, 402);
    assert.match(refused.body.error.message, new RegExp(`add funds at ${gw.url}/billing`));

    await page.getByRole('link', { name: 'Billing' }).click();
    await page.getByRole('heading', { level: 1, name: 'Billing' }).waitFor();
    assert.equal(await page.getByTestId('billing-balance').textContent(), '$0.00');
    await page.getByLabel('Code', { exact: true }).fill(code.toLowerCase());
    await page.getByRole('button', { name: 'Redeem' }).click();
    await page.getByText('Redeemed: $3.00 added. Balance $3.00.').waitFor();
    await page.getByTestId('billing-balance').getByText('$3.00').waitFor();
    await page.getByLabel('Code', { exact: true }).fill(code);
    await page.getByRole('button', { name: 'Redeem' }).click();
    await page.getByText('you have already redeemed this code').waitFor();
    await assertAccessibleBasics(page, 'billing');
    await shoot('billing-02-redeemed');
  });

  test('top up through Stripe Checkout and come back credited', async () => {
    await page.getByLabel('Amount (USD)', { exact: true }).fill('25');
    await page.getByRole('button', { name: 'Pay with card' }).click();
    // The (fake) hosted payment page of Stripe.
    await page.waitForURL(/\/c\/pay\/cs_test_/);
    assert.equal(await page.getByTestId('amount').textContent(), 'US$25.00');
    await shoot('billing-03-stripe-checkout');
    await page.getByRole('button', { name: 'Pay US$25.00' }).click();
    await page.waitForURL(new RegExp(`${gw.url}/billing\\?checkout=chk_`));
    await page.getByTestId('checkout-result').getByText('Payment received: $25.00 was added to your balance.').waitFor();
    await page.getByTestId('billing-balance').getByText('$28.00').waitFor();
    assert.equal(await page.getByTestId('billing-available').textContent(), '$28.00');
    assert.equal(await page.getByTestId('billing-held').textContent(), '$0.00');
    await shoot('billing-04-topped-up');
  });

  test('the ledger shows every movement with its link, filtered', async () => {
    const created = await page.evaluate(async () => {
      const session = (await (await fetch('/api/v1/auth/session')).json()) as { data: { csrfToken: string } };
      const res = await fetch('/api/v1/generation/create', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-csrf-token': session.data.csrfToken },
        body: JSON.stringify({ model: 'z-image-turbo', input: { prompt: 'a red kite' } }),
      });
      return (await res.json()) as { data: { taskId: string } };
    });
    const taskId = created.data.taskId;
    await go('/billing');
    const table = page.getByTestId('ledger-table');
    await table.getByRole('link', { name: taskId }).waitFor();
    const rows = table.locator('tbody tr');
    assert.equal(await rows.count(), 3);
    assert.match((await rows.nth(0).textContent()) ?? '', /Generation/);
    assert.match((await rows.nth(1).textContent()) ?? '', /Top-up.*chk_.*\+\$25\.00\$28\.00/);
    assert.match((await rows.nth(2).textContent()) ?? '', /Redeem code.*rcode_.*\+\$3\.00\$3\.00/);
    assert.equal(await rows.nth(2).getByRole('link', { name: /^rcode_/ }).getAttribute('href'), '#redeem-title', 'a redeem-code row links to the redeem form');
    await shoot('billing-05-ledger');
    await page.getByLabel('Show').selectOption({ label: 'Money in' });
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="ledger-table"] tbody tr').length === 2);
    await page.getByLabel('Show').selectOption({ label: 'Everything' });
    await table.getByRole('link', { name: taskId }).click();
    await page.getByRole('heading', { level: 1 }).waitFor();
    assert.equal(new URL(page.url()).pathname, `/generations/${taskId}`);
    await page.setViewportSize({ width: 390, height: 844 });
    await go('/billing');
    await assertAccessibleBasics(page, 'billing on a phone');
    await shoot('billing-06-mobile');
  });

  test('no page errors, and the books verify', async () => {
    assert.deepEqual(pageErrors, []);
    assert.ok(userId);
    assert.deepEqual(await verifyLedger(gw.gateway.services.database.db), []);
  });
});
