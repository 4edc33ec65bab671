import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { ADMIN_TOKEN, type TestGateway } from '../../support/gateway.ts';
import { assertAccessibleBasics, browserSkipReason, PHONE, screenshot, WIDE } from './browser.ts';
import { openSignedInBrowser, type SignedInBrowser } from './signed-in-browser.ts';

/**
 * The console a paying user keeps (issue 21), in headless Chromium against an embedded gateway, at a
 * laptop (1366×900) and a phone (390×844): Getting started on a new account's Overview, the keys
 * table with a long name and a refused empty name, Projects and Administrator access laid out with the
 * shared field, the Models and pricing page, and no dashboard route scrolling sideways on the phone
 * once every table has rows (keys, a kept file, a storage charge, the ledger, an agent run); an unknown
 * URL shows the dashboard's not-found page, a reversed date range is refused in place, and a
 * conversation is renamed and deleted with inline steps.
 * Screenshots: layout-*-wide.png and layout-*-phone.png.
 */
const skip = browserSkipReason();
const LONG_NAME = `deploy-${'x'.repeat(93)}`;

async function sharpPng(width: number, height: number): Promise<Buffer> {
  const { default: sharp } = await import('sharp');
  return sharp({ create: { width, height, channels: 3, background: { r: 140, g: 110, b: 90 } } }).png().toBuffer();
}

describe('console layout at laptop and phone widths', { skip }, () => {
  let signedIn: SignedInBrowser;
  let gw: TestGateway;
  let page: Page;
  let userId = '';
  let shots: string[] = [];
  let pageErrors: string[] = [];

  const api = <T>(method: string, path: string, body?: unknown) => signedIn.api<T>(method, path, body);
  const go = (path: string) => signedIn.go(page, path);
  const shootBoth = (name: string) => signedIn.shootBoth(page, name);
  /** The page's widths, and when it is too wide the innermost elements that stick out (for the failure message). */
  const sidewaysOverflow = () =>
    page.evaluate(() => {
      const root = document.scrollingElement ?? document.documentElement;
      const clipped = (el: Element) => {
        for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) if (getComputedStyle(p).overflowX !== 'visible') return true;
        return false;
      };
      const culprits: string[] = [];
      if (root.scrollWidth > root.clientWidth) {
        const sticksOut = (el: Element) => el.getBoundingClientRect().right > root.clientWidth + 1;
        for (const el of document.body.querySelectorAll('*')) {
          if (!sticksOut(el) || clipped(el) || [...el.children].some((c) => sticksOut(c) && !clipped(c))) continue;
          const right = el.getBoundingClientRect().right;
          culprits.push(`${el.tagName.toLowerCase()}.${[...el.classList].join('.')}#${el.id} right=${Math.round(right)}`);
          if (culprits.length >= 5) break;
        }
      }
      return { scrollWidth: root.scrollWidth, clientWidth: root.clientWidth, culprits };
    });
  /** The label sits above its control (the shared field), not beside it on the same line. */
  const assertStacked = async (controlId: string) => {
    const label = await page.locator(`label[for="${controlId}"]`).boundingBox();
    const control = await page.locator(`#${controlId}`).boundingBox();
    assert.ok(label && control, `${controlId} and its label are shown`);
    assert.ok(label.y + label.height <= control.y + 1, `the label of ${controlId} is above it`);
    assert.equal(await page.locator(`.field:has(> label[for="${controlId}"])`).count(), 1, `${controlId} is in the shared field`);
  };

  before(async () => {
    signedIn = await openSignedInBrowser({ name: 'layout' });
    ({ gw, page, userId, shots, pageErrors } = signedIn);
  });

  after(async () => {
    await signedIn?.close();
  });

  test('a new account sees Getting started: its base URL, a key to create, a first request, the playground', async () => {
    const started = page.getByRole('region', { name: 'Getting started' });
    await started.waitFor();
    assert.equal(await page.getByTestId('base-url').textContent(), `${gw.url}/api/v1`);
    assert.equal(await started.getByRole('link', { name: 'Create a key' }).getAttribute('href'), '/keys');
    assert.equal(await started.getByRole('link', { name: 'Open the playground' }).getAttribute('href'), '/playground');
    const code = page.getByTestId('first-request');
    assert.match(await code.inputValue(), new RegExp(`^curl -s ${gw.url}/api/v1/chat/completions`));
    await started.getByRole('button', { name: 'Python (OpenAI SDK)' }).click();
    assert.match(await code.inputValue(), /OpenAI\(base_url="http:\/\/[^"]+\/api\/v1", api_key=os\.environ\["SWITCHBOARD_API_KEY"\]\)/);
    await started.getByRole('button', { name: 'JavaScript (OpenAI SDK)' }).click();
    assert.match(await code.inputValue(), /new OpenAI\(\{ baseURL: 'http:\/\/[^']+\/api\/v1'/);
    await assertAccessibleBasics(page, 'overview (new account)');
    await shootBoth('overview-getting-started');
  });

  test('keys: Enter in the empty name is refused in place; a long unbroken name wraps inside the table', async () => {
    await go('/keys');
    await page.getByLabel('Name', { exact: true }).press('Enter');
    await page.getByRole('alert').getByText('Give the key a name').waitFor();
    assert.equal(await page.getByLabel('Name', { exact: true }).getAttribute('aria-invalid'), 'true');
    assert.deepEqual(await api<unknown[]>('GET', '/api/v1/keys'), [], 'no key was created');
    for (const name of [LONG_NAME, 'ci runner']) {
      await page.getByLabel('Name', { exact: true }).fill(name);
      await page.getByRole('button', { name: 'Create key' }).click();
      await page.getByTestId('created-key').waitFor();
      // The keys table (the limits table below it names each key too).
      await page.getByRole('region', { name: 'Active keys' }).getByRole('row', { name: new RegExp(name) }).waitFor();
    }
    for (const viewport of [WIDE, PHONE]) {
      await page.setViewportSize(viewport);
      const widths = await page.evaluate(() => {
        const region = document.querySelector('section.table-scroll[aria-label="Active keys"]') as HTMLElement;
        return { table: region.scrollWidth, region: region.clientWidth };
      });
      assert.ok(widths.table <= widths.region, `the keys table fits its box at ${viewport.width} px (${widths.table} > ${widths.region})`);
      const short = await page.getByRole('region', { name: 'Active keys' }).getByRole('rowheader', { name: 'ci runner' }).boundingBox();
      assert.ok(short && short.x >= 0 && short.x + short.width <= viewport.width, `the short name is in view at ${viewport.width} px`);
    }
    await page.setViewportSize(WIDE);
    await assertAccessibleBasics(page, 'keys with a long name');
    await shootBoth('keys-long-name');
  });

  test('Projects and Account → Administrator access lay labels above their inputs', async () => {
    await go('/projects');
    await assertStacked('project-name');
    await shootBoth('projects-new');
    await page.getByLabel('Name', { exact: true }).fill('Layout brand');
    await page.getByRole('button', { name: 'Create project' }).click();
    await page.getByRole('heading', { level: 1, name: 'Layout brand' }).waitFor();
    for (const id of ['p-name', 'p-instructions', 'p-brand-name', 'p-voice', 'p-logo', 'default-imageModelId', 'asset-role']) await assertStacked(id);
    await assertAccessibleBasics(page, 'project');
    await shootBoth('project-brand');
    await go('/account');
    await assertStacked('admin-token');
    await assertAccessibleBasics(page, 'account');
    await shootBoth('account-admin-access');
  });

  test('Models and pricing: every model with its prices and parameters, searched and filtered by kind', async () => {
    const catalog = await api<Array<{ id: string; type: string; kind: string; params: unknown[] }>>('GET', '/api/v1/catalog');
    const cost = await api<{ models: Array<{ model: string; tiers: Array<{ price: string }>; tokens?: { input?: string } }> }>('GET', '/api/v1/cost');
    await page.getByRole('link', { name: 'Models', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Models and pricing' }).waitFor();
    const cards = page.locator('.model-card');
    await page.getByTestId('model-count').getByText(`${catalog.length} models`).waitFor();
    assert.equal(await cards.count(), catalog.length);
    const media = catalog.find((m) => m.kind === 'media');
    const text = catalog.find((m) => m.kind === 'llm');
    assert.ok(media && text);
    const mediaCard = page.locator('.model-card', { has: page.locator('.model-id', { hasText: new RegExp(`^${media.id}$`) }) });
    for (const tier of cost.models.find((m) => m.model === media.id)?.tiers ?? []) await mediaCard.getByRole('cell', { name: `$${tier.price}` }).first().waitFor();
    await mediaCard.getByText(`Parameters (${media.params.length})`).click();
    const textInput = cost.models.find((m) => m.model === text.id)?.tokens?.input;
    assert.ok(textInput);
    await shootBoth('models-all');

    await page.getByLabel('Search models').fill(media.id);
    await mediaCard.waitFor();
    assert.ok((await cards.count()) < catalog.length, 'the search narrows the list');
    await page.getByLabel('Search models').fill('');
    await page.locator('label.segment', { hasText: /^Text$/ }).click();
    await page.getByTestId('model-count').getByText(new RegExp(`^${catalog.filter((m) => m.type === 'TEXT').length} models?$`)).waitFor();
    const textCard = page.locator('.model-card', { has: page.locator('.model-id', { hasText: new RegExp(`^${text.id}$`) }) });
    await textCard.getByRole('row', { name: `Input $${textInput}` }).waitFor();
    await assertAccessibleBasics(page, 'models');
    await shootBoth('models-text');
  });

  test('at 390 px no dashboard route scrolls sideways, with every table filled', async () => {
    await gw.admin('POST', `/admin/v1/users/${userId}/credits`, { amountCents: 500, note: 'layout e2e' }, { 'idempotency-key': 'layout-e2e-credit' });
    // A storage plan (a charge), a kept file, an agent run (its steps and costs), a ledger with entries.
    await go('/storage');
    await page.getByRole('button', { name: 'Choose Starter' }).click();
    await page.getByRole('button', { name: 'Pay $2.00' }).click();
    await page.getByText('Paid $2.00.').waitFor();
    const created = await api<{ taskId: string }>('POST', '/api/v1/generation/create', { model: 'z-image-turbo', input: { prompt: 'a long pier at noon' } });
    for (let i = 0; i < 200; i++) {
      if ((await api<{ status: string }>('GET', `/api/v1/task/status/${created.taskId}`)).status === 'finished') break;
      await page.waitForTimeout(100);
    }
    await go(`/generations/${created.taskId}`);
    await page.getByRole('button', { name: 'Keep file 1 in storage' }).click();
    await page.getByText(/Kept in/).waitFor();
    await go('/agent');
    await page.getByRole('button', { name: 'New conversation' }).click();
    await page.getByLabel('Message', { exact: true }).fill('an image of a green kite over a beach');
    await page.getByRole('button', { name: /^(Send|Queue)$/ }).click();
    await page.waitForURL(/\/agent\/c\/conv_/);
    const conversationPath = new URL(page.url()).pathname;
    await page.getByTestId('agent-answer').last().getByText('Completed').waitFor({ timeout: 60_000 });
    const projectPath = `/projects/${(await api<{ items: Array<{ projectId: string }> }>('GET', '/api/v1/agent/projects')).items[0]?.projectId}`;

    await page.setViewportSize(PHONE);
    const routes = ['/', '/keys', '/generations', `/generations/${created.taskId}`, '/playground', '/models', '/chat', '/agent', '/agent/new', conversationPath, '/projects', projectPath, '/storage', '/webhooks', '/billing', '/account', '/no-such-page'];
    const wide: string[] = [];
    for (const route of routes) {
      await go(route);
      await page.waitForLoadState('networkidle');
      const { scrollWidth, clientWidth, culprits } = await sidewaysOverflow();
      if (scrollWidth > clientWidth) wide.push(`${route}: ${scrollWidth} > ${clientWidth} (${culprits.join(', ')})`);
      if (['/storage', '/billing', conversationPath].includes(route)) {
        shots.push(await screenshot(page, `layout-phone${route.replace(/\/c\/.*/, '-run').replace(/\//g, '-')}`));
      }
    }
    assert.deepEqual(wide, [], 'pages wider than the phone');

    // Storage on the phone: each file's Delete is on screen without scrolling sideways.
    await go('/storage');
    const remove = page.getByRole('button', { name: /^Delete / }).first();
    const removeBox = await remove.boundingBox();
    assert.ok(removeBox && removeBox.x >= 0 && removeBox.x + removeBox.width <= PHONE.width, 'Delete is in view on a phone');

    // The mask painter fits the phone, and Cancel can be tapped.
    await go(conversationPath);
    await page.getByTestId('stream-state').getByText('Live').waitFor();
    await page.getByLabel('Files to attach').setInputFiles({ name: 'wide.png', mimeType: 'image/png', buffer: await sharpPng(1200, 700) });
    await page.locator('[data-testid="agent-upload"][data-status="ready"]').first().waitFor();
    await page.getByRole('button', { name: 'Paint mask' }).click();
    await page.getByTestId('mask-canvas').waitFor();
    const painter = await page.locator('.mask-painter').boundingBox();
    assert.ok(painter && painter.x + painter.width <= PHONE.width, `the mask painter fits the phone (${painter?.width} px wide)`);
    assert.ok((await sidewaysOverflow()).scrollWidth <= PHONE.width);
    shots.push(await screenshot(page, 'layout-phone-mask-painter'));
    await page.locator('.mask-painter').getByRole('button', { name: 'Cancel', exact: true }).click();
    await page.getByTestId('mask-canvas').waitFor({ state: 'detached' });
    await page.setViewportSize(WIDE);
    assert.deepEqual(pageErrors, []);
  });

  test('an unknown URL shows the dashboard\'s not-found page; a reversed date range is refused in place', async () => {
    const response = await page.goto(`${gw.url}/no-such-page`);
    assert.equal(response?.status(), 404);
    await page.getByRole('heading', { level: 1, name: 'Page not found' }).waitFor();
    await page.getByRole('link', { name: 'Back to the overview' }).waitFor();
    await go('/?range=custom&from=2026-01-01&to=2026-01-31');
    await page.locator('#range-from').fill('2026-03-10');
    await page.locator('#range-to').fill('2026-03-01');
    await page.getByRole('button', { name: 'Apply', exact: true }).click();
    await page.getByRole('alert').getByText('The last day comes before the first').waitFor();
    assert.match(page.url(), /from=2026-01-01&to=2026-01-31/, 'the range shown is unchanged');
    await go('/generations');
    await page.locator('#filter-from').fill('2026-03-10');
    await page.locator('#filter-to').fill('2026-03-01');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByRole('alert').getByText('The last day comes before the first').waitFor();
    assert.doesNotMatch(page.url(), /from=/);
  });

  test('a conversation is renamed and deleted with the inline steps, no browser dialog', async () => {
    const dialogs: string[] = [];
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    const conversation = await api<{ conversationId: string }>('POST', '/api/v1/agent/conversations', {});
    await go(`/agent/c/${conversation.conversationId}`);
    await page.getByTestId('stream-state').getByText('Live').waitFor();
    await page.getByRole('button', { name: 'Rename', exact: true }).click();
    await page.getByLabel('New title').fill('Kites, renamed');
    await page.getByRole('button', { name: 'Save title' }).click();
    await page.getByTestId('conversation-title').getByText('Kites, renamed').waitFor();
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    await page.getByRole('button', { name: 'Cancel', exact: true }).click();
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    await page.getByRole('button', { name: 'Confirm delete' }).click();
    await page.waitForURL(/\/agent$/);
    assert.deepEqual(dialogs, []);
  });

  test('an administrator page fits the phone too', async () => {
    await go('/account');
    await page.getByLabel('ADMIN_TOKEN').fill(ADMIN_TOKEN);
    await page.getByRole('button', { name: 'Become administrator' }).click();
    await page.getByRole('heading', { level: 1, name: /Admin/ }).waitFor();
    await page.setViewportSize(PHONE);
    await page.waitForLoadState('networkidle');
    const { scrollWidth, clientWidth, culprits } = await sidewaysOverflow();
    assert.ok(scrollWidth <= clientWidth, `/admin: ${scrollWidth} > ${clientWidth} (${culprits.join(', ')})`);
    await page.setViewportSize(WIDE);
  });
});
