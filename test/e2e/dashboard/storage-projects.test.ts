import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { verifyLedger } from '../../../src/adapters/db/ledger/ledger-checks.ts';
import type { TestGateway } from '../../support/gateway.ts';
import { assertAccessibleBasics, browserSkipReason, screenshot } from './browser.ts';
import { openSignedInBrowser, type SignedInBrowser } from './signed-in-browser.ts';

/**
 * The Storage and Projects pages in headless Chromium against a whole embedded gateway: a user sees
 * the plans, takes a quote and pays it (the balance falls by the quoted amount), keeps a generated
 * image from its page, finds it in Storage, deletes it (usage back to zero), is told to add funds
 * when a plan costs more than the balance (nothing charged); creates a brand project, saves a new
 * version with colours, and starts a conversation in it. Screenshots: storage-*.png, projects-*.png.
 */
const skip = browserSkipReason();

describe('storage and projects in a browser', { skip }, () => {
  let signedIn: SignedInBrowser;
  let gw: TestGateway;
  let page: Page;
  let userId = '';
  let pageErrors: string[] = [];

  const shoot = async (name: string) => {
    signedIn.shots.push(await screenshot(page, name));
  };
  const api = <T>(method: string, path: string, body?: unknown) => signedIn.api<T>(method, path, body);
  const balanceMicro = async () => {
    const row = await gw.gateway.services.database.db.selectFrom('users').select('balance_micro').where('id', '=', userId).executeTakeFirstOrThrow();
    return Number(row.balance_micro);
  };
  const go = (path: string) => signedIn.go(page, path);

  before(async () => {
    signedIn = await openSignedInBrowser({ name: 'storage', context: { viewport: { width: 1280, height: 1000 } }, creditCents: 500 });
    ({ gw, page, userId, pageErrors } = signedIn);
    page.on('dialog', (dialog) => void dialog.accept());
  });

  after(async () => {
    await signedIn?.close();
  });

  test('plans, a quote before paying, paying it charges exactly the quote', async () => {
    await page.getByRole('link', { name: 'Storage' }).click();
    await page.getByRole('heading', { level: 1, name: 'Storage' }).waitFor();
    await page.getByText('No storage plan yet.').waitFor();
    await assertAccessibleBasics(page, 'storage (no plan)');
    const before = await balanceMicro();
    await page.getByRole('button', { name: 'Choose Starter' }).click();
    await page.getByRole('heading', { name: 'Before you pay' }).waitFor();
    assert.equal(await page.getByTestId('quote-amount').textContent(), '$2.00');
    await shoot('storage-01-quote');
    await page.getByRole('button', { name: 'Pay $2.00' }).click();
    await page.getByText('Paid $2.00.').waitFor();
    await page.getByRole('heading', { name: /Your plan: Starter/ }).waitFor();
    assert.equal(await balanceMicro(), before - 2_000_000);
    await page.getByText('0 B of 10 GB used').waitFor();
  });

  test('a generation is kept from its page, listed in Storage, and deleted again', async () => {
    const created = await api<{ taskId: string }>('POST', '/api/v1/generation/create', { model: 'z-image-turbo', input: { prompt: 'a lighthouse at dusk' } });
    for (let i = 0; i < 200; i++) {
      const status = await api<{ status: string }>('GET', `/api/v1/task/status/${created.taskId}`);
      if (status.status === 'finished') break;
      await page.waitForTimeout(100);
    }
    await go(`/generations/${created.taskId}`);
    await page.getByRole('button', { name: 'Keep file 1 in storage' }).click();
    await page.getByText(/Kept in/).waitFor();
    await page.getByRole('link', { name: 'Storage', exact: true }).first().click();
    await page.getByRole('heading', { level: 1, name: 'Storage' }).waitFor();
    const row = page.getByRole('row', { name: new RegExp(created.taskId) });
    await row.waitFor();
    await page.waitForFunction(() => [...document.querySelectorAll('img.thumb')].some((img) => (img as HTMLImageElement).complete && (img as HTMLImageElement).naturalWidth > 0));
    await assertAccessibleBasics(page, 'storage with a file');
    await shoot('storage-02-plan-and-files');
    const used = await page.locator('label[for="storage-usage"]').textContent();
    assert.doesNotMatch(used ?? '', /^0 B/);
    await row.getByRole('button', { name: /^Delete/ }).click();
    // The inline confirm the other pages use, not a browser dialog.
    await row.getByRole('button', { name: /^Confirm delete/ }).click();
    await row.waitFor({ state: 'detached' });
    await page.getByText('0 B of 10 GB used').waitFor();
  });

  test('a plan above the balance asks to add funds and charges nothing', async () => {
    const before = await balanceMicro();
    await page.getByRole('button', { name: 'Choose Studio' }).click();
    await page.getByRole('heading', { name: 'Before you pay' }).waitFor();
    await page.getByRole('button', { name: /^Pay \$/ }).click();
    const alert = page.getByRole('alert').filter({ hasText: 'Your balance is too low' });
    await alert.waitFor();
    assert.equal(await alert.getByRole('link', { name: 'Add funds' }).getAttribute('href'), '/billing');
    await shoot('storage-03-insufficient-balance');
    assert.equal(await balanceMicro(), before);
    assert.deepEqual(await verifyLedger(gw.gateway.services.database.db), []);
  });

  test('a brand project: create, save a new version with colours, start a conversation in it', async () => {
    await page.getByRole('link', { name: 'Projects' }).click();
    await page.getByRole('heading', { level: 1, name: 'Projects' }).waitFor();
    await page.getByLabel('Name', { exact: true }).fill('Acme launch');
    await page.getByRole('button', { name: 'Create project' }).click();
    await page.getByRole('heading', { level: 1, name: 'Acme launch' }).waitFor();
    await page.getByLabel('Instructions for the agent').fill('Show the product on a white background, always.');
    await page.getByLabel('Brand name').fill('Acme');
    await page.getByLabel('Brand voice').fill('Warm, short sentences.');
    await page.getByLabel('Add a colour').fill('#ff6600');
    await page.getByRole('button', { name: 'Add colour' }).click();
    await page.getByLabel('Image model').selectOption('z-image-turbo');
    await page.getByRole('button', { name: 'Save a new version' }).click();
    await page.getByText('Saved as version 2.').waitFor();
    await page.getByTestId('versions').getByText('Version 2').waitFor();
    await assertAccessibleBasics(page, 'project');
    await shoot('projects-01-brand');
    const projectId = page.url().split('/projects/')[1] ?? '';
    const project = await api<{ version: number; brand: { colors: string[] }; modelDefaults: { imageModelId: string } }>('GET', `/api/v1/agent/projects/${projectId}`);
    assert.equal(project.version, 2);
    assert.deepEqual(project.brand.colors, ['#FF6600']);
    assert.equal(project.modelDefaults.imageModelId, 'z-image-turbo');
    await page.getByRole('button', { name: 'New conversation in this project' }).click();
    // A draft in the project: created with its first message.
    await page.waitForURL(/\/agent\/new\?project=/);
    await page.getByLabel('Message', { exact: true }).fill('a product photo on white');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.waitForURL(/\/agent\/c\/conv_/);
    const conversationId = page.url().split('/agent/c/')[1] ?? '';
    const conversation = await api<{ projectId: string }>('GET', `/api/v1/agent/conversations/${conversationId}`);
    assert.equal(conversation.projectId, projectId);
    assert.deepEqual(pageErrors, []);
  });
});
