import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import type { TestGateway } from '../../support/gateway.ts';
import { assertAccessibleBasics, browserSkipReason, screenshot } from './browser.ts';
import { type DashboardBrowser, openDashboardBrowser } from './signed-in-browser.ts';

/**
 * The dashboard in headless Chromium against a whole gateway (embedded mode, the built-in local
 * provider): sign up, create a key, generate an image in the playground and see it, see the spend on
 * the overview chart, revoke the key and see the API refuse it. A screenshot of every page is written
 * to test-output/screenshots/.
 */
const skip = browserSkipReason();
const EMAIL = `e2e.${Date.now()}@example.com`;
const PASSWORD = 'a long e2e passphrase';
const TODAY = new Date().toISOString().slice(0, 10);

describe('dashboard in a browser', { skip }, () => {
  let dashboardBrowser: DashboardBrowser;
  let gw: TestGateway;
  let page: Page;
  let apiKey = '';
  let userId = '';
  let pageErrors: string[] = [];

  const go = (path: string) => dashboardBrowser.go(page, path);
  const shoot = async (name: string) => {
    dashboardBrowser.shots.push(await screenshot(page, name));
  };
  const apiStatus = async (key: string) => (await fetch(`${gw.url}/api/v1/user/me`, { headers: { authorization: `Bearer ${key}` } })).status;

  before(async () => {
    dashboardBrowser = await openDashboardBrowser({ name: 'dashboard', context: { viewport: { width: 1280, height: 900 } } });
    ({ gw, page, pageErrors } = dashboardBrowser);
  });

  after(async () => {
    await dashboardBrowser?.close();
  });

  test('the page is served with its caching and security headers, the SPA paths too', async () => {
    const index = await fetch(`${gw.url}/`);
    assert.equal(index.status, 200);
    assert.equal(index.headers.get('cache-control'), 'no-cache');
    assert.match(index.headers.get('content-security-policy') ?? '', /script-src 'self'/);
    const html = await index.text();
    const asset = /src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    assert.ok(asset, 'index.html references a hashed script');
    const js = await fetch(gw.url + asset, { headers: { 'accept-encoding': 'gzip' } });
    assert.equal(js.status, 200);
    assert.equal(js.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    const body = await js.text();
    assert.ok(!/sb_[A-Za-z0-9_-]{20,}|whsec_|test-admin-token/.test(body), 'no secret in the bundle');
    for (const path of ['/keys', '/generations/task_x', '/playground', '/admin']) {
      const res = await fetch(gw.url + path);
      assert.equal(res.status, 200, path);
      assert.match(res.headers.get('content-type') ?? '', /text\/html/);
    }
    assert.equal((await fetch(`${gw.url}/assets/nope.js`)).status, 404);
    assert.equal((await fetch(`${gw.url}/api/v1/user/me`)).status, 401, 'the API is not shadowed');
  });

  test('sign up with the keyboard', async () => {
    await go('/signup');
    await assertAccessibleBasics(page, 'sign-up');
    await shoot('01-sign-up');
    // The heading has focus; Tab reaches the email field, then the password; Enter submits.
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'email');
    await page.keyboard.type(EMAIL);
    await page.keyboard.press('Tab');
    await page.keyboard.type(PASSWORD);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    assert.equal(await page.getByTestId('balance').textContent(), '$0.00', 'a new account starts at 0');
    const session = await page.evaluate(async () => (await fetch('/api/v1/auth/session')).json());
    userId = (session as { data: { user: { id: string } } }).data.user.id;
    // The operator credits the new account (5 USD).
    await gw.admin('POST', `/admin/v1/users/${userId}/credits`, { amountCents: 500, note: 'e2e' }, { 'idempotency-key': 'e2e-credit' });
  });

  test('create an API key: shown once, copied, and it works', async () => {
    await go('/keys');
    await page.getByLabel('Name').fill('e2e script');
    await page.getByRole('button', { name: 'Create key' }).click();
    const keyField = page.getByTestId('created-key');
    await keyField.waitFor();
    apiKey = await keyField.inputValue();
    assert.match(apiKey, /^sb_/);
    await page.getByRole('button', { name: 'Copy key' }).click();
    await page.getByText(/Copied to the clipboard|Press Ctrl\+C/).waitFor();
    await assertAccessibleBasics(page, 'API keys');
    await shoot('02-api-keys');
    assert.equal(await apiStatus(apiKey), 200);
  });

  test('generate an image in the playground and see it', async () => {
    await go('/playground?model=nano-banana-2');
    await page.getByLabel(/^Prompt/).fill('a lighthouse at dusk, seen from the sea');
    await page.getByLabel(/^Size/).selectOption('1:1');
    await page.getByTestId('estimate').getByText('Estimated cost').waitFor();
    assert.match((await page.getByTestId('estimate').textContent()) ?? '', /\$0\.067/);
    await page.getByLabel(/^Resolution/).selectOption('2K');
    await page.getByTestId('estimate').getByText('$0.101').waitFor();
    await assertAccessibleBasics(page, 'playground');
    await page.getByRole('button', { name: 'Generate' }).click();
    await page.getByTestId('task-status').getByText('Finished').waitFor({ timeout: 60_000 });
    const image = page.locator('.playground-result img').first();
    await image.waitFor();
    await page.waitForFunction(() => {
      const img = document.querySelector('.playground-result img') as HTMLImageElement | null;
      return img?.complete && img.naturalWidth > 0;
    });
    assert.ok((await image.evaluate((img: HTMLImageElement) => img.naturalWidth)) > 0, 'the image loaded');
    await shoot('03-playground');
  });

  test('the generations list shows it with a preview; the detail shows the attempt', async () => {
    await go('/generations');
    const card = page.locator('.generation-card').first();
    await card.waitFor();
    await page.waitForFunction(() => {
      const img = document.querySelector('.generation-card img') as HTMLImageElement | null;
      return img?.complete && img.naturalWidth > 0;
    });
    assert.match((await card.textContent()) ?? '', /\$0\.101/);
    await assertAccessibleBasics(page, 'generations');
    await shoot('04-generations');
    await page.getByLabel('Status').selectOption('failed');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByText('No generations match these filters').waitFor();
    await page.getByRole('button', { name: 'Clear' }).click();
    await card.getByRole('link').click();
    await page.getByRole('heading', { name: 'Provider attempts' }).waitFor();
    const attempts = page.getByRole('region', { name: 'Provider attempts' });
    await attempts.getByText('local').first().waitFor();
    await assertAccessibleBasics(page, 'generation detail');
    await shoot('05-generation-detail');
  });

  test('the overview shows the spend on the chart', async () => {
    await go('/?range=7d');
    await page.getByTestId('spend-chart').waitFor();
    const bar = page.locator(`[data-testid="spend-chart"] rect[data-day="${TODAY}"]`);
    assert.equal(await bar.getAttribute('data-cost'), '10.1', 'today: 10.1 cents');
    assert.ok(Number(await bar.getAttribute('height')) > 0, 'a visible bar');
    assert.equal(await page.getByTestId('spent').textContent(), '$0.101');
    assert.equal(await page.getByTestId('balance').textContent(), '$4.89', '500 cents − 10.1, rounded down');
    await page.getByText('Show spend by day as a table').click();
    await page.getByRole('row', { name: new RegExp(`${TODAY} 1 \\$0\\.101`) }).waitFor();
    await page.getByRole('cell', { name: 'nano-banana-2' }).or(page.getByRole('rowheader', { name: 'nano-banana-2' })).first().waitFor();
    await assertAccessibleBasics(page, 'overview');
    await shoot('06-overview');
  });

  test('chat playground streams a reply', async (t) => {
    const probe = await fetch(`${gw.url}/api/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' }, body: '{}' });
    await go('/chat');
    if (probe.status === 404) {
      await shoot('07-chat');
      t.skip('POST /api/v1/chat/completions is not on this gateway yet');
      return;
    }
    await page.getByLabel('Model').selectOption({ index: 0 });
    await page.getByLabel('Message', { exact: true }).fill('Say hello to the dashboard.');
    await page.keyboard.press('Enter');
    await page.getByText('Reply complete.').waitFor({ state: 'attached', timeout: 30_000 });
    const reply = (await page.locator('.message-assistant .message-content').last().textContent()) ?? '';
    assert.ok(reply.length > 0, 'the assistant wrote something');
    await assertAccessibleBasics(page, 'chat');
    await shoot('07-chat');
  });

  test('webhook signing secret: show and rotate', async (t) => {
    await go('/webhooks');
    const secret = page.getByTestId('webhook-secret');
    await page.locator('[data-testid="webhook-secret"], .notice').first().waitFor();
    if (!(await secret.isVisible())) {
      await shoot('08-webhooks');
      t.skip('GET /api/v1/webhooks/secret is not on this gateway yet');
      return;
    }
    await page.getByRole('button', { name: 'Show' }).click();
    const before = await secret.inputValue();
    assert.match(before, /^whsec_/);
    await page.getByRole('button', { name: 'Rotate secret…' }).click();
    await page.getByRole('button', { name: 'Rotate now' }).click();
    await page.getByText('The secret was rotated').waitFor();
    assert.notEqual(await secret.inputValue(), before);
    await assertAccessibleBasics(page, 'webhooks');
    await shoot('08-webhooks');
  });

  test('account and admin pages', async () => {
    await go('/account');
    await assertAccessibleBasics(page, 'account');
    await shoot('09-account');
    await gw.admin('PUT', `/admin/v1/users/${userId}/admin`, { isAdmin: true });
    await go('/admin');
    await page.getByRole('link', { name: 'Admin' }).waitFor();
    await page.getByRole('rowheader', { name: EMAIL }).waitFor();
    await page.getByRole('row', { name: new RegExp(EMAIL.replace(/[.+]/g, '\\$&')) }).getByText('Administrator').waitFor();
    await page.getByRole('button', { name: `Manage ${EMAIL}` }).click();
    await page.getByLabel('Credit (USD)').fill('0.25');
    await page.getByRole('button', { name: 'Add credit' }).click();
    await page.getByText(/Credited \$0\.25/).waitFor();
    await page.getByRole('region', { name: 'Providers' }).getByText('local').first().waitFor();
    await assertAccessibleBasics(page, 'admin');
    await shoot('10-admin');
  });

  test('on a phone-sized screen the pages fit the width', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    for (const [path, name] of [
      ['/?range=7d', '11-overview-phone'],
      ['/playground?model=nano-banana-2', '12-playground-phone'],
      ['/generations', '13-generations-phone'],
    ] as const) {
      await go(path);
      await page.waitForTimeout(300);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      assert.ok(overflow <= 1, `${path} scrolls sideways by ${overflow}px`);
      await shoot(name);
    }
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  test('revoke the key: the API refuses it at once', async () => {
    await go('/keys');
    const prefix = apiKey.slice(0, 11);
    await page.getByRole('button', { name: `Revoke e2e script (${prefix}…)` }).click();
    await page.getByRole('button', { name: 'Confirm revoke' }).click();
    await page.getByText(`Key e2e script (${prefix}…) revoked.`).waitFor({ state: 'attached' });
    await shoot('14-api-keys-revoked');
    assert.equal(await apiStatus(apiKey), 401);
  });

  test('sign out ends the session', async () => {
    await go('/account');
    await page.getByRole('main').getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to Switchboard' }).waitFor();
    const after = await page.evaluate(async () => (await fetch('/api/v1/auth/session')).status);
    assert.equal(after, 401);
    await shoot('15-sign-in');
    assert.deepEqual(pageErrors, [], 'no script errors on any page');
  });
});
