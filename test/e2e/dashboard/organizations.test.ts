import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { assertAccessibleBasics, browserSkipReason, signUpInBrowser } from './browser.ts';
import { openPage, openSignedInBrowser, type SignedInBrowser } from './signed-in-browser.ts';

/**
 * Teams in a browser (issue 33, items 1, 2 and 8): an owner creates an organization on the Teams page,
 * invites a second person by email; that person opens the link, accepts, makes a key of the
 * organization and spends its balance; the owner's page names them in the members, keys and ledger,
 * a monthly cap set on the page stops their spending, and removing them stops their key. Screenshots: organizations-*-wide.png and -phone.png.
 */
const skip = browserSkipReason();

describe('organizations in a browser', { skip }, () => {
  let owner: SignedInBrowser;
  let bobContext: BrowserContext;
  let bob: Page;
  const bobErrors: string[] = [];
  const bobEmail = `organizations-bob.${Date.now()}@example.com`;

  before(async () => {
    owner = await openSignedInBrowser({ name: 'organizations', gateway: { env: { SWITCHBOARD_BUDGET_ALERT_CHECK_MS: '200' } } });
    bobContext = await owner.newContext();
    bob = await openPage(bobContext, bobErrors);
    await signUpInBrowser(bob, owner.gw.url, bobEmail, 'a long e2e passphrase');
  });
  after(async () => {
    await bobContext?.close();
    await owner?.close();
  });

  test('create, invite, accept, spend through a member key, see the member named, remove them', async () => {
    const { page, gw } = owner;
    await owner.go(page, '/organizations');
    assert.match(await page.getByText('You belong to no organization yet').innerText(), /no organization/);
    await page.getByLabel('Name').fill('Acme Studio');
    await page.getByRole('button', { name: 'Create organization' }).click();
    await page.getByRole('heading', { level: 1, name: 'Acme Studio' }).waitFor();
    const organizationId = decodeURIComponent(new URL(page.url()).pathname.split('/').pop() ?? '');
    await gw.admin('POST', `/admin/v1/users/${organizationId}/credits`, { amountCents: 500, note: 'e2e' }, { 'idempotency-key': `org-e2e-${organizationId}` });
    await page.reload();
    await page.getByTestId('org-balance').filter({ hasText: '$5.00' }).waitFor();

    await page.getByLabel('Email address').fill(bobEmail);
    await page.getByRole('button', { name: 'Send invitation' }).click();
    const link = await page.locator('#invite-link').inputValue();
    assert.match(link, /\/api\/v1\/organizations\/invitations\/open\?token=/);
    await page.getByTestId('pending-invitations').getByText(bobEmail).waitFor();
    await owner.shootBoth(page, 'owner');

    await bob.goto(link);
    await bob.getByRole('heading', { level: 1, name: 'Join an organization' }).waitFor();
    await owner.shootBoth(bob, 'join');
    await bob.getByRole('button', { name: 'Accept the invitation' }).click();
    await bob.getByRole('heading', { level: 1, name: 'Acme Studio' }).waitFor();
    await bob.getByText('Member', { exact: true }).first().waitFor();
    await bob.getByLabel('Name').fill('bob laptop');
    await bob.getByRole('button', { name: 'Create key' }).click();
    const bobKey = await bob.getByTestId('org-created-key').inputValue();
    const created = await gw.api(bobKey, 'POST', '/api/v1/generation/create', { model: 'z-image-turbo', input: { prompt: 'a team logo' } });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    await bob.reload();
    await bob.getByRole('heading', { level: 2, name: 'Your part of the ledger' }).waitFor();
    await bob.getByTestId('org-ledger-table').getByText('Generation').waitFor();
    await assertAccessibleBasics(bob, 'the organization page as a member');

    await page.reload();
    await page.getByTestId('members-table').locator('th', { hasText: bobEmail }).waitFor();
    // The owner caps bob's month; the ledger refuses his keys above it.
    await page.getByLabel(`Monthly cap of ${bobEmail} in dollars (empty: no cap)`).fill('0.00');
    await page.getByRole('button', { name: `Save the monthly cap of ${bobEmail}` }).click();
    for (let i = 0; i < 100; i++) {
      const members = await owner.api<Array<{ email: string; monthlyCapMicroUsd: number | null }>>('GET', `/api/v1/organizations/${organizationId}/members`);
      if (members.find((m) => m.email === bobEmail)?.monthlyCapMicroUsd === 0) break;
      await page.waitForTimeout(50);
    }
    const capped = await gw.api(bobKey, 'POST', '/api/v1/generation/create', { model: 'z-image-turbo', input: { prompt: 'over the cap' } });
    assert.equal(capped.status, 402, JSON.stringify(capped.body));
    await page.getByTestId('org-keys-table').getByText(bobEmail).waitFor();
    const ledgerRow = page.getByTestId('org-ledger-table').locator('tr', { hasText: 'Generation' });
    assert.match(await ledgerRow.innerText(), new RegExp(bobEmail.replace(/[.]/g, '\\.')));
    await assertAccessibleBasics(page, 'the organization page as its owner');
    await owner.shootBoth(page, 'books');

    // Budget alerts: a bad amount is named in words and nothing is saved; a budget bob's spend passed fires at once.
    const alerts = page.getByTestId('budget-alerts');
    await alerts.getByLabel('Monthly budget').fill('ten dollars');
    await alerts.getByRole('button', { name: 'Save alerts' }).click();
    await alerts.getByText('Dollars above 0 with at most two decimals').first().waitFor();
    assert.equal((await owner.api<{ monthlyBudgetMicroUsd: string | null }>('GET', `/api/v1/organizations/${organizationId}/budget-alerts`)).monthlyBudgetMicroUsd, null);
    await alerts.getByLabel('Monthly budget').fill('0.01');
    await alerts.getByLabel('Spend alerts at (%)').fill('50, 100');
    await alerts.getByLabel('Balance below').fill('1.00');
    await alerts.getByRole('button', { name: 'Save alerts' }).click();
    await alerts.getByText('Saved. Alerts are checked every minute.').waitFor();
    // The workers' check runs every 200 ms here; the section shows what it found at each load.
    for (let i = 0; i < 50; i++) {
      const seen = await owner.api<{ firings: unknown[] }>('GET', `/api/v1/organizations/${organizationId}/budget-alerts`);
      if (seen.firings.length >= 2) break;
      await page.waitForTimeout(200);
    }
    await page.reload();
    const firings = page.getByTestId('budget-firings');
    await firings.getByText('Spend passed 100% of the monthly budget').waitFor();
    await firings.getByText('covered by a higher alert').waitFor();
    assert.doesNotMatch(await page.getByTestId('budget-alerts').innerText(), /micro|spend_|balance_below|member_cap/i, 'in words');
    await assertAccessibleBasics(page, 'the organization page with budget alerts');
    await owner.shootBoth(page, 'budget-alerts');

    await page.getByRole('button', { name: `Remove ${bobEmail}` }).click();
    await page.getByRole('button', { name: 'Confirm removal' }).click();
    await page.getByTestId('members-table').locator('th', { hasText: bobEmail }).waitFor({ state: 'detached' });
    assert.equal((await gw.api(bobKey, 'GET', '/api/v1/user/me')).status, 401, "the removed member's key stopped");

    // The account switcher: your own account or the organization's page, from any page.
    await owner.go(page, '/generations');
    await page.getByLabel('Account').selectOption({ label: 'Acme Studio' });
    await page.getByRole('heading', { level: 1, name: 'Acme Studio' }).waitFor();
    assert.equal(await page.getByLabel('Account').inputValue(), organizationId);
    const exportLink = page.getByRole('link', { name: 'Download the ledger (CSV)' });
    assert.match((await exportLink.getAttribute('href')) ?? '', new RegExp(`^/api/v1/organizations/${organizationId}/usage/export\\?type=ledger`));
    const download = await page.request.get(new URL((await exportLink.getAttribute('href')) ?? '', gw.url).href);
    const csv = await download.text();
    assert.ok(csv.split('\n')[0]?.trim().endsWith(',member'), csv.slice(0, 200));
    assert.ok(csv.includes(bobEmail), 'the ledger export names the member');
    await page.getByLabel('Account').selectOption({ label: 'Personal' });
    await page.waitForURL((url) => url.pathname === '/');

    await owner.go(page, '/organizations');
    await page.getByTestId('organizations-table').getByText('Acme Studio').waitFor();
    await owner.shootBoth(page, 'list');
    assert.deepEqual([...owner.pageErrors, ...bobErrors], []);
  });
});
