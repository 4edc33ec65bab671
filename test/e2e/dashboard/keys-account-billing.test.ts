import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { createUser } from '../../../src/adapters/db/stores/account-store.ts';
import { FakeSmtpServer, type ReceivedMail } from '../../fakes/smtp.fake.ts';
import { csvObjects, usdToMicro } from '../../support/csv.ts';
import type { TestGateway } from '../../support/gateway.ts';
import { assertAccessibleBasics, browserSkipReason, PHONE, pageApi, signUpInBrowser, WIDE } from './browser.ts';
import { openPage, openSignedInBrowser, type SignedInBrowser } from './signed-in-browser.ts';

/**
 * Issue 21, items 15, 3, 10 and 19 as a user meets them, in headless Chromium (its clock in New York,
 * to catch UTC mix-ups) against an embedded gateway with a fake SMTP server: every limit of a key set
 * on the Keys page and enforced on real requests, with its spend this month equal to the ledger's;
 * a sign-in link by email and a first password; an agent message from an empty balance refused with
 * the draft kept; both CSV exports downloaded and checked against the ledger.
 * Screenshots: keys-account-billing-*-wide.png and -phone.png.
 */
const skip = browserSkipReason();
const PASSWORD = 'a long e2e passphrase';
const TIME_ZONE = 'America/New_York';
const KEY_NAME = 'ci, "capped"';
const QUOTED_PROMPT = 'a pier, at "noon"';
const CREDIT_NOTE = 'goodwill, "e2e" credit';

interface KeyView {
  id: string;
  name: string;
  limits: Record<string, unknown>;
  spendThisMonthMicroUsd?: number;
}
interface LedgerItem {
  id: string;
  kind: string;
  amountMicroUsd: string;
  balanceAfterMicroUsd: string;
  note: string | null;
  link: { type: string; id: string | null };
}

/** The body of a mail with quoted-printable undone (nodemailer folds long lines that way). */
function mailText(mail: ReceivedMail): string {
  const [head = '', ...rest] = mail.data.split('\r\n\r\n');
  const body = rest.join('\r\n\r\n');
  return /quoted-printable/i.test(head) ? body.replace(/=\r\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16))) : body;
}

/** "$0.050123" as micro-USD. */
const shownMicro = (text: string) => usdToMicro(text.trim().replace(/^\$/, '').replace(/,/g, ''));

describe('keys, sign-in by link, an empty balance and exports in a browser', { skip }, () => {
  let signedIn: SignedInBrowser;
  let smtp: FakeSmtpServer;
  let gw: TestGateway;
  let page: Page;
  let pageErrors: string[] = [];

  const api = <T>(method: string, path: string, body?: unknown) => signedIn.api<T>(method, path, body);
  const go = (on: Page, path: string) => signedIn.go(on, path);
  const shootBoth = (on: Page, name: string) => signedIn.shootBoth(on, name);
  const waitFinished = async (taskId: string) => {
    for (let i = 0; i < 300; i++) {
      const { status } = await api<{ status: string }>('GET', `/api/v1/task/status/${taskId}`);
      if (status === 'finished' || status === 'failed') return status;
      await page.waitForTimeout(100);
    }
    throw new Error(`${taskId} did not finish`);
  };
  const ledger = async () => (await api<{ items: LedgerItem[] }>('GET', '/api/v1/billing/ledger?limit=200')).items;

  before(async () => {
    smtp = await FakeSmtpServer.start();
    signedIn = await openSignedInBrowser({
      name: 'keys-account-billing',
      gateway: { env: { SMTP_URL: smtp.url, MAIL_FROM: 'Switchboard <no-reply@example.test>' } },
      context: { timezoneId: TIME_ZONE, acceptDownloads: true },
      creditCents: 500,
      creditNote: CREDIT_NOTE,
    });
    ({ gw, page, pageErrors } = signedIn);
  });

  after(async () => {
    await signedIn?.close();
    await smtp?.close();
  });

  test('item 15: every limit set on the Keys page reaches the API, is enforced, and the spend this month equals the ledger', async () => {
    assert.equal(await page.evaluate(() => Intl.DateTimeFormat().resolvedOptions().timeZone), TIME_ZONE);
    await go(page, '/keys');
    await page.getByLabel('Name', { exact: true }).fill(KEY_NAME);
    await page.getByRole('button', { name: 'Create key' }).click();
    const secret = (await page.getByTestId('created-key').inputValue()).trim();
    assert.match(secret, /^sb_/);
    const keyId = (await api<KeyView[]>('GET', '/api/v1/keys')).find((k) => k.name === KEY_NAME)?.id ?? '';
    assert.ok(keyId);

    // Bad input is refused beside its field, in words, and nothing is sent.
    const patches: string[] = [];
    page.on('request', (request) => {
      if (request.method() === 'PATCH') patches.push(request.url());
    });
    await page.getByRole('button', { name: `Edit limits of ${KEY_NAME}` }).click();
    await page.getByLabel('Spend cap (USD)').fill('-1');
    await page.getByLabel('Requests per minute').fill('0');
    await page.getByLabel('Expires (UTC)').fill('2020-01-01T10:00');
    await page.getByRole('button', { name: 'Save limits' }).click();
    const refusals = {
      cap: await page.locator('#limit-cap-error').textContent(),
      rpm: await page.locator('#limit-rpm-error').textContent(),
      expires: await page.locator('#limit-expires-error').textContent(),
    };
    assert.match(refusals.cap ?? '', /cannot be negative/);
    assert.match(refusals.rpm ?? '', /whole number from 1/);
    assert.match(refusals.expires ?? '', /has passed/);
    for (const text of Object.values(refusals)) assert.doesNotMatch(text ?? '', /limits\.|micro|expiresAt|requestsPerMinute|integer/, 'words, not the API');
    for (const id of ['limit-cap', 'limit-rpm', 'limit-expires']) assert.equal(await page.locator(`#${id}`).getAttribute('aria-invalid'), 'true');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'limit-cap', 'the first refused field has the focus');
    assert.deepEqual(patches, [], 'nothing was sent');
    assert.equal((await api<KeyView[]>('GET', '/api/v1/keys')).find((k) => k.id === keyId)?.limits.requestsPerMinute, null);
    await assertAccessibleBasics(page, 'keys with refused limits');
    await shootBoth(page, 'keys-limits-refused');
    // An hour ago in UTC is still hours ahead as a New York wall time: read as UTC, it has passed.
    const hourAgoUtc = new Date(Date.now() - 3_600_000).toISOString().slice(0, 16);
    await page.getByLabel('Spend cap (USD)').fill('');
    await page.getByLabel('Requests per minute').fill('');
    await page.getByLabel('Expires (UTC)').fill(hourAgoUtc);
    await page.getByRole('button', { name: 'Save limits' }).click();
    await page.locator('#limit-expires-error').getByText('has passed', { exact: false }).waitFor();
    assert.equal(await page.locator('#limit-cap-error').count(), 0, 'a corrected field loses its error');
    assert.deepEqual(patches, [], 'nothing was sent');

    // Every limit, the expiry a UTC time on a day that is still the day before in New York.
    const year = new Date().getUTCFullYear() + 1;
    await page.getByLabel('Spend cap (USD)').fill('0.05');
    await page.getByLabel('Cap period').selectOption('month');
    await page.getByLabel('Expires (UTC)').fill(`${year}-07-01T02:30`);
    await page.getByLabel('Allowed models').fill('z-image-turbo, gpt-5.4-mini');
    await page.getByLabel('Requests per minute').fill('30');
    await page.getByLabel('Tokens per minute').fill('50000');
    await page.getByLabel('Concurrent generations').fill('2');
    await page.getByRole('button', { name: 'Save limits' }).click();
    const limitsRow = page.getByRole('region', { name: 'Key limits' }).getByRole('row', { name: new RegExp(KEY_NAME.replace(/"/g, '.')) });
    await limitsRow.getByText(`expires 1 Jul ${year}, 02:30 UTC`, { exact: false }).waitFor();
    const saved = (await api<KeyView[]>('GET', '/api/v1/keys')).find((k) => k.id === keyId);
    assert.deepEqual(saved?.limits, {
      spendCapMicroUsd: 50_000,
      spendCapPeriod: 'month',
      expiresAt: `${year}-07-01T02:30:00.000Z`,
      allowedModels: ['z-image-turbo', 'gpt-5.4-mini'],
      requestsPerMinute: 30,
      tokensPerMinute: 50_000,
      concurrentGenerations: 2,
    });
    await limitsRow.getByText('50,000 tokens/min', { exact: false }).waitFor();
    // Opened again, the form shows what was saved (the same UTC time, not shifted by the browser's zone).
    await page.getByRole('button', { name: `Edit limits of ${KEY_NAME}` }).click();
    assert.equal(await page.getByLabel('Expires (UTC)').inputValue(), `${year}-07-01T02:30`);
    assert.equal(await page.getByLabel('Spend cap (USD)').inputValue(), '0.05');
    await page.getByRole('button', { name: 'Cancel', exact: true }).click();

    // Real requests with the key: a model outside the allow-list is forbidden, spend past the cap refused.
    const outside = await gw.api(secret, 'POST', '/api/v1/chat/completions', { model: 'gpt-5.5', messages: [{ role: 'user', content: 'hi' }] });
    assert.equal(outside.status, 403, JSON.stringify(outside.body));
    const chat = await gw.api(secret, 'POST', '/api/v1/chat/completions', { model: 'gpt-5.4-mini', messages: [{ role: 'user', content: 'hello, "there"' }], max_completion_tokens: 40 });
    assert.equal(chat.status, 200, JSON.stringify(chat.body));
    const taskIds: string[] = [];
    let refused: { status: number; body: unknown } | undefined;
    for (let i = 0; i < 8 && !refused; i++) {
      const created = await gw.api(secret, 'POST', '/api/v1/generation/create', { model: 'z-image-turbo', input: { prompt: QUOTED_PROMPT } });
      if (created.status !== 200) refused = created;
      else {
        const taskId = (created.body as { data: { taskId: string } }).data.taskId;
        taskIds.push(taskId);
        await waitFinished(taskId);
      }
    }
    assert.equal(refused?.status, 402, JSON.stringify(refused?.body));
    assert.equal((refused?.body as { error?: { code?: string } } | undefined)?.error?.code, 'key_spend_cap_reached');
    assert.ok(taskIds.length >= 1, 'the cap let some generations through first');

    // The ledger's charges made with this key (its generations and its chat request) add up to the page's figure.
    let charged = 0n;
    for (let i = 0; i < 100; i++) {
      const items = await ledger();
      const mine = items.filter((e) => (e.link.type === 'generation' && taskIds.includes(e.link.id ?? '')) || e.link.type === 'chat_request');
      if (mine.some((e) => e.link.type === 'chat_request') && !(await api<{ holds: unknown[] }>('GET', '/api/v1/billing')).holds.length) {
        charged = -mine.reduce((sum, e) => sum + BigInt(e.amountMicroUsd), 0n);
        break;
      }
      await page.waitForTimeout(100);
    }
    assert.ok(charged > 0n && charged <= 50_000n, `the key's charges (${charged}) are within the cap`);
    await go(page, '/keys');
    const spent = limitsRow.getByTestId('key-spend-this-month');
    assert.equal(shownMicro((await spent.textContent()) ?? ''), charged, 'spend this month on the page = the ledger');
    assert.equal(BigInt((await api<KeyView[]>('GET', '/api/v1/keys')).find((k) => k.id === keyId)?.spendThisMonthMicroUsd ?? -1), charged);
    await assertAccessibleBasics(page, 'keys with limits');
    await shootBoth(page, 'keys-limits-saved');
    // On a phone each key's row stacks: its Edit limits is on screen, not behind a sideways scroll.
    await page.setViewportSize(PHONE);
    const edit = await page.getByRole('button', { name: `Edit limits of ${KEY_NAME}` }).boundingBox();
    assert.ok(edit && edit.x >= 0 && edit.x + edit.width <= PHONE.width, 'Edit limits is in view on a phone');
    await limitsRow.getByText('Spent this month (UTC):').waitFor();
    await page.setViewportSize(WIDE);
    assert.deepEqual(pageErrors, []);
  });

  test('issue 29: a management key made on the Keys page manages keys within its limits; a plain key manages none', async () => {
    await go(page, '/keys');
    await page.getByLabel('Name', { exact: true }).fill('script manager');
    await page.getByLabel('Management key').check();
    await page.getByRole('button', { name: 'Create key' }).click();
    const manager = (await page.getByTestId('created-key').inputValue()).trim();
    await page.getByText('It is a management key', { exact: false }).waitFor();
    const keys = await api<Array<KeyView & { manageKeys: boolean; revokedAt: string | null }>>('GET', '/api/v1/keys');
    const made = keys.find((k) => k.name === 'script manager');
    assert.equal(made?.manageKeys, true);
    assert.equal(keys.find((k) => k.name === KEY_NAME)?.manageKeys, false, 'a key is not a management key unless asked');
    await page.getByRole('row', { name: /script manager/ }).getByText('Management key').waitFor();
    assert.equal(await page.getByLabel('Management key').isChecked(), false, 'the option resets after a create');
    await assertAccessibleBasics(page, 'keys with a management key');
    await shootBoth(page, 'keys-management');
    // An existing key is granted management and has it withdrawn from its row.
    const flagOf = async (name: string) => (await api<Array<KeyView & { manageKeys: boolean }>>('GET', '/api/v1/keys')).find((k) => k.name === name)?.manageKeys;
    await page.getByRole('button', { name: `Grant key management to ${KEY_NAME}` }).click();
    await page.getByRole('status').getByText(`Key ${KEY_NAME} may now manage keys.`).waitFor({ state: 'attached' });
    assert.equal(await flagOf(KEY_NAME), true);
    await page.getByRole('button', { name: `Withdraw key management from ${KEY_NAME}` }).click();
    await page.getByRole('status').getByText(`Key ${KEY_NAME} may no longer manage keys.`).waitFor({ state: 'attached' });
    assert.equal(await flagOf(KEY_NAME), false);

    // With the API: the management key makes a key; the plain key of item 15 cannot.
    assert.equal((await gw.api(manager, 'POST', '/api/v1/keys', { name: 'made by the script' })).status, 200);
    const plain = keys.find((k) => k.name === KEY_NAME);
    const refused = await gw.api(manager, 'PATCH', `/api/v1/keys/${made?.id}`, { limits: { spendCapMicroUsd: 0 } });
    assert.equal(refused.status, 403, 'not even a management key changes itself');
    assert.equal((await api<KeyView[]>('GET', '/api/v1/keys')).find((k) => k.id === plain?.id)?.limits.spendCapMicroUsd, 50_000);
    await page.getByRole('button', { name: 'Revoke script manager', exact: false }).click();
    await page.getByRole('button', { name: 'Confirm revoke' }).click();
    await page.getByRole('status').getByText('revoked', { exact: false }).waitFor();
    assert.deepEqual(pageErrors, []);
  });

  test('item 3: a sign-in link from the sign-in page, then a first password without a current one, then a password sign-in', async () => {
    const email = `linked.${Date.now()}@example.com`;
    await createUser(gw.gateway.services.database.db, { email });
    const linkContext = await signedIn.newContext();
    const linked = await openPage(linkContext);
    try {
      await go(linked, '/login');
      await linked.getByLabel('Email', { exact: true }).fill(email);
      await linked.getByRole('button', { name: 'Email me a sign-in link' }).click();
      assert.equal(await linked.getByLabel('Email', { exact: true }).nth(1).inputValue(), email, 'the link form takes the address typed above');
      await linked.getByRole('button', { name: 'Send the link' }).click();
      await linked.getByRole('status').getByText(`If ${email} has an account here, a sign-in link is on its way.`, { exact: false }).waitFor();
      await assertAccessibleBasics(linked, 'sign-in with the link form');
      await shootBoth(linked, 'sign-in-link-sent');

      const [mail] = await smtp.mailsTo(email);
      assert.ok(mail);
      const link = /https?:\/\/\S+\/api\/v1\/auth\/link\?token=[A-Za-z0-9_-]+/.exec(mailText(mail))?.[0];
      assert.ok(link, `a link in the mail: ${mail.data}`);
      assert.ok(link.startsWith(gw.url), `the link goes to the gateway (${link})`);
      // Opening the link signs nothing in: the page asks first (login CSRF), and its button POSTs the token.
      await linked.goto(link);
      await linked.getByRole('heading', { level: 1, name: 'Sign in with a link' }).waitFor();
      assert.equal(new URL(linked.url()).hash, '', 'the token does not stay in the address bar');
      assert.equal(await linked.evaluate(async () => (await fetch('/api/v1/auth/session')).status), 401, 'not signed in yet');
      await assertAccessibleBasics(linked, 'the sign-in link page');
      await linked.getByRole('button', { name: 'Sign in', exact: true }).click();
      await linked.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();

      await go(linked, '/account');
      await linked.getByRole('heading', { level: 2, name: 'Set a password' }).waitFor();
      assert.equal(await linked.getByLabel('Current password').count(), 0, 'no current password is asked');
      await shootBoth(linked, 'account-first-password');
      await linked.getByLabel('New password', { exact: true }).fill(PASSWORD);
      await linked.getByLabel('New password again').fill(PASSWORD);
      await linked.getByRole('button', { name: 'Set password' }).click();
      await linked.getByRole('status').getByText('Password set: you can now sign in with your email and this password.', { exact: false }).waitFor();
      await linked.getByRole('heading', { level: 2, name: 'Change password' }).waitFor();
      await linked.getByLabel('Current password').waitFor();

      await linked.getByRole('main').getByRole('button', { name: 'Sign out' }).click();
      await linked.getByRole('heading', { level: 1, name: 'Sign in to Switchboard' }).waitFor();
      await linked.getByLabel('Email', { exact: true }).fill(email);
      await linked.getByLabel('Password', { exact: true }).fill(PASSWORD);
      await linked.getByRole('button', { name: 'Sign in', exact: true }).click();
      await linked.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
      const session = await pageApi<{ user: { email: string; hasPassword: boolean } }>(linked, 'GET', '/api/v1/auth/session');
      assert.deepEqual([session.user.email, session.user.hasPassword], [email, true]);
    } finally {
      await linkContext.close();
    }
  });

  test('item 10: an agent message from a $0 balance is refused up front with one Add funds, the draft kept', async () => {
    const brokeContext = await signedIn.newContext();
    const errors: string[] = [];
    const broke = await openPage(brokeContext, errors);
    const posts: string[] = [];
    broke.on('request', (request) => {
      if (request.method() === 'POST' && /\/api\/v1\/agent\/conversations/.test(request.url())) posts.push(request.url());
    });
    try {
      await signUpInBrowser(broke, gw.url, `broke.${Date.now()}@example.com`, PASSWORD);
      const draft = 'an image of a red kite over a grey sea';
      // A new conversation: nothing is created.
      await go(broke, '/agent/new');
      await broke.getByLabel('Message', { exact: true }).fill(draft);
      await broke.getByRole('button', { name: 'Send', exact: true }).click();
      const notice = broke.getByTestId('agent-empty-balance');
      await notice.getByText('your balance is $0.00', { exact: false }).waitFor();
      assert.equal(await broke.getByRole('link', { name: 'Add funds' }).count(), 1, 'one Add funds on the page');
      assert.equal(await broke.getByRole('button', { name: 'Add funds' }).count(), 0);
      assert.equal(await notice.getByRole('link', { name: 'Add funds' }).getAttribute('href'), '/billing');
      assert.equal(await broke.getByLabel('Message', { exact: true }).inputValue(), draft, 'the draft stays');
      assert.match(broke.url(), /\/agent\/new$/);
      assert.deepEqual(posts, [], 'no conversation was created, no message sent');
      assert.deepEqual((await pageApi<{ items: unknown[] }>(broke, 'GET', '/api/v1/agent/conversations')).items, []);
      await assertAccessibleBasics(broke, 'agent draft from an empty balance');
      await shootBoth(broke, 'agent-empty-balance-new');

      // A conversation that exists: its composer refuses the same way.
      const conversation = await pageApi<{ conversationId: string }>(broke, 'POST', '/api/v1/agent/conversations', {});
      posts.length = 0;
      await go(broke, `/agent/c/${conversation.conversationId}`);
      await broke.getByTestId('stream-state').getByText('Live').waitFor();
      await broke.getByLabel('Message', { exact: true }).fill(draft);
      await broke.getByLabel('Message', { exact: true }).press('Enter');
      await broke.getByTestId('agent-empty-balance').getByText('your balance is $0.00', { exact: false }).waitFor();
      assert.equal(await broke.getByRole('link', { name: 'Add funds' }).count(), 1, 'one Add funds on the page');
      assert.equal(await broke.getByLabel('Message', { exact: true }).inputValue(), draft, 'the draft stays');
      assert.deepEqual(posts, [], 'no message was sent');
      await shootBoth(broke, 'agent-empty-balance-thread');
      assert.deepEqual(errors, []);
    } finally {
      await brokeContext.close();
    }
  });

  test('item 19: both CSV exports downloaded from the Billing page match the ledger, quoted fields included', async () => {
    // Charges beside the key's: a generation and a chat request from the dashboard's session.
    const created = await api<{ taskId: string }>('POST', '/api/v1/generation/create', { model: 'z-image-turbo', input: { prompt: QUOTED_PROMPT } });
    await waitFinished(created.taskId);
    await api('POST', '/api/v1/chat/completions', { model: 'gpt-5.4-mini', messages: [{ role: 'user', content: 'one more, please' }], max_completion_tokens: 40 });
    for (let i = 0; i < 100 && (await api<{ holds: unknown[] }>('GET', '/api/v1/billing')).holds.length; i++) await page.waitForTimeout(100);
    const entries = await ledger();

    await go(page, '/billing');
    // Yesterday and today (UTC): every entry of this test, even one written just before midnight.
    const day = (daysAgo: number) => new Date(Date.now() - daysAgo * 86_400_000).toISOString().slice(0, 10);
    const [yesterday, today] = [day(1), day(0)];
    await page.locator('#export-from').fill(yesterday);
    await page.locator('#export-to').fill(today);
    await page.getByRole('heading', { name: 'Export' }).scrollIntoViewIfNeeded();
    await shootBoth(page, 'billing-export');
    const download = async (name: string) => {
      const [file] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name }).click()]);
      return { name: file.suggestedFilename(), text: await readFile(await file.path(), 'utf8') };
    };

    const ledgerCsv = await download('Download the ledger (CSV)');
    assert.equal(ledgerCsv.name, `switchboard-ledger-${yesterday}-to-${today}.csv`);
    const rows = csvObjects(ledgerCsv.text);
    assert.deepEqual(
      rows.map((r) => r.entry_id),
      entries.map((e) => e.id),
      'the same entries, newest first',
    );
    for (const [n, row] of rows.entries()) {
      const entry = entries[n] as LedgerItem;
      assert.equal(usdToMicro(row.amount_usd ?? ''), BigInt(entry.amountMicroUsd), `amount of ${entry.id}`);
      assert.equal(usdToMicro(row.balance_after_usd ?? ''), BigInt(entry.balanceAfterMicroUsd), `balance after ${entry.id}`);
      assert.equal(row.kind, entry.kind);
      assert.equal(row.note, entry.note ?? '');
    }
    assert.ok(rows.some((r) => r.note === CREDIT_NOTE), 'the note with a comma and quotes survives');
    const total = rows.reduce((sum, r) => sum + usdToMicro(r.amount_usd ?? ''), 0n);
    const balance = BigInt((await api<{ balanceMicroUsd: string }>('GET', '/api/v1/billing')).balanceMicroUsd);
    assert.equal(total, balance, 'the column adds up to the balance');

    const generationsCsv = await download('Download the generations (CSV)');
    const generations = csvObjects(generationsCsv.text);
    const debits = entries.filter((e) => e.link.type === 'generation');
    assert.deepEqual(generations.map((g) => g.generation_id).sort(), debits.map((e) => e.link.id).sort(), 'one row per charged generation');
    const costs = generations.reduce((sum, g) => sum + usdToMicro(g.cost_usd ?? ''), 0n);
    assert.equal(costs, -debits.reduce((sum, e) => sum + BigInt(e.amountMicroUsd), 0n), 'generation costs = their ledger debits');
    assert.ok(generations.every((g) => g.prompt === QUOTED_PROMPT), 'the prompt with a comma and quotes survives');
    assert.equal(generations.filter((g) => g.api_key === KEY_NAME).length, debits.length - 1, "the key's generations carry its name");

    // The range is the range: the days before hold none of it.
    await page.locator('#export-from').fill(day(3));
    await page.locator('#export-to').fill(day(2));
    const before = await download('Download the ledger (CSV)');
    assert.equal(before.name, `switchboard-ledger-${day(3)}-to-${day(2)}.csv`);
    assert.deepEqual(csvObjects(before.text), [], 'only the header');
    assert.deepEqual(pageErrors, []);
  });
});
