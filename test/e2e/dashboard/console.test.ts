import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { ADMIN_TOKEN, type TestGateway } from '../../support/gateway.ts';
import { assertAccessibleBasics, browserSkipReason, screenshot } from './browser.ts';
import { openSignedInBrowser, type SignedInBrowser } from './signed-in-browser.ts';

/**
 * The console as a paying user uses it (issue 13, items 10-12), in headless Chromium against a whole
 * embedded gateway (z-image-turbo routed to a local provider that takes 1.5 s, so running tasks can
 * be watched): music forms per action and track details, the chat playground (cheap default, max
 * tokens and temperature sent, cost per reply, no empty reply after a failure, kept across a
 * reload), running generations refreshing, the balance guard and copy-as-code in the playground,
 * usage by API key, the docs link, the phone menu, and the first administrator from ADMIN_TOKEN.
 * Screenshots: console-*.png.
 */
const skip = browserSkipReason();

describe('the console in a browser', { skip }, () => {
  let signedIn: SignedInBrowser;
  let gw: TestGateway;
  let page: Page;
  let userId = '';
  let pageErrors: string[] = [];

  const shoot = async (name: string) => {
    signedIn.shots.push(await screenshot(page, name));
  };
  const go = (path: string) => signedIn.go(page, path);
  const api = <T>(method: string, path: string, body?: unknown) => signedIn.api<T>(method, path, body);
  const credit = (cents: number, key: string) => gw.admin('POST', `/admin/v1/users/${userId}/credits`, { amountCents: cents, note: 'console e2e' }, { 'idempotency-key': key });

  before(async () => {
    signedIn = await openSignedInBrowser({
      name: 'console',
      gateway: { configFile: { providers: { slowjob: { type: 'local', options: { latencyMs: 1500 } } }, routes: { 'z-image-turbo': ['slowjob'] } } },
      context: { viewport: { width: 1280, height: 1000 } },
    });
    ({ gw, page, userId, pageErrors } = signedIn);
    await credit(500, 'console-credit-1');
  });

  after(async () => {
    await signedIn?.close();
  });

  test('music: the form shows the chosen action\'s fields only; the result shows each track\'s details, here and on its page', async () => {
    await go('/playground?model=suno');
    await page.getByLabel(/^Action/).waitFor();
    await page.getByLabel(/^Description/).waitFor();
    assert.equal(await page.getByLabel(/^Source task id/i).count(), 0, 'music does not take a source task');
    await page.getByLabel(/^Action/).selectOption('bpm');
    await page.getByLabel(/^Source task id/i).waitFor();
    assert.equal(await page.getByLabel(/^Description/).count(), 0, 'bpm has no description');
    const labels = await page.locator('.param-form label, .param-form legend').allTextContents();
    assert.equal(new Set(labels).size, labels.length, `no duplicate labels: ${labels.join(' | ')}`);
    await page.getByLabel(/^Action/).selectOption('music');
    await page.getByLabel(/^Description/).fill('a calm song about rain on the window');
    await page.getByText(/Estimated cost/).waitFor();
    await page.getByRole('button', { name: 'Generate' }).click();
    await page.getByTestId('task-status').getByText('Finished').waitFor({ timeout: 60_000 });
    const tracks = page.getByTestId('music-track');
    assert.equal(await tracks.count(), 2);
    const first = tracks.first();
    assert.ok(((await first.locator('.track-title').textContent()) ?? '').length > 0, 'a title');
    assert.match((await first.getByTestId('track-duration').textContent()) ?? '', /^\d+:\d\d$/);
    assert.match((await first.getByTestId('track-id').textContent()) ?? '', /^[0-9a-f]{24}$/);
    await page.waitForFunction(() => {
      const img = document.querySelector('.track-cover') as HTMLImageElement | null;
      return img?.complete && img.naturalWidth > 0;
    });
    const extend = await first.getByRole('link', { name: 'Extend' }).getAttribute('href');
    assert.match(extend ?? '', /action=extend&sourceTaskId=task_.*&audioId=[0-9a-f]{24}/);
    await assertAccessibleBasics(page, 'music result');
    await shoot('console-01-music');
    await page.getByRole('link', { name: /^task_/ }).click();
    // The heading shows before the generation has loaded: wait for its tracks, then count them.
    await page.getByTestId('music-track').first().waitFor();
    assert.equal(await page.getByTestId('music-track').count(), 2, 'the detail page shows the tracks too');
    // Named by its song (issue 21, item 9): the detail heading and the generations list card.
    const song = ((await page.getByTestId('music-track').first().locator('.track-title').textContent()) ?? '').trim();
    assert.match((await page.getByRole('heading', { level: 1 }).textContent()) ?? '', new RegExp(song.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
    const musicTaskId = new URL(page.url()).pathname.split('/').at(-1) ?? '';
    await go('/generations');
    assert.match((await page.locator(`[data-task-id="${musicTaskId}"] .generation-title`).textContent()) ?? '', new RegExp(song.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
    await page.goto(gw.url + (extend ?? ''));
    // The form fills from the link once the catalog has loaded: wait for it, do not race it.
    await page.waitForFunction(() => {
      const action = [...document.querySelectorAll('select')].find((el) => el.labels?.[0]?.textContent?.startsWith('Action'));
      return action?.value === 'extend';
    });
    await page.getByLabel(/^Source task id/i).waitFor();
    assert.match(await page.getByLabel(/^Source task id/i).inputValue(), /^task_/);
  });

  test('chat: cheap default, max tokens and temperature sent, cost per reply, no empty reply after a failure, kept across a reload', async () => {
    const catalog = (await (await fetch(`${gw.url}/api/v1/catalog`)).json()) as Array<{ id: string; kind: string; priceFrom?: string }>;
    const cheapest = catalog.filter((m) => m.kind === 'llm').sort((a, b) => Number(a.priceFrom) - Number(b.priceFrom))[0]?.id;
    await go('/chat');
    await page.waitForFunction((id) => (document.getElementById('chat-model') as HTMLSelectElement | null)?.value === id, cheapest);
    await page.getByLabel('Max tokens').fill('40');
    await page.getByLabel('Temperature').fill('0.3');
    const bodies: Array<Record<string, unknown>> = [];
    page.on('request', (request) => {
      if (request.url().endsWith('/api/v1/chat/completions') && request.method() === 'POST') bodies.push(JSON.parse(request.postData() ?? '{}') as Record<string, unknown>);
    });
    await page.getByLabel('Message', { exact: true }).fill('Hello there, playground.');
    await page.keyboard.press('Enter');
    await page.getByText('Reply complete.').waitFor({ state: 'attached' });
    await page.getByTestId('reply-cost').first().waitFor();
    assert.match((await page.getByTestId('reply-cost').first().textContent()) ?? '', /^Cost \$0\.\d+/);
    assert.equal(bodies[0]?.max_tokens, 40);
    assert.equal(bodies[0]?.temperature, 0.3);

    await page.route('**/api/v1/chat/completions', (route) =>
      route.fulfill({ status: 503, contentType: 'application/json', body: JSON.stringify({ error: { message: 'upstream unavailable, try again', type: 'api_error', code: 'service_unavailable' } }) }),
    );
    await page.getByLabel('Message', { exact: true }).fill('This one fails.');
    await page.keyboard.press('Enter');
    // The dashboard says the error in words (issue 21, item 7), not the API's message.
    await page.getByRole('alert').filter({ hasText: 'briefly unavailable. Try again in a moment.' }).waitFor();
    assert.equal(await page.locator('.message-assistant').count(), 1, 'no empty assistant message is left');
    assert.equal(await page.getByLabel('Message', { exact: true }).inputValue(), 'This one fails.', 'the text is back in the box');
    await page.unroute('**/api/v1/chat/completions');
    await page.keyboard.press('Enter');
    await page.locator('.message-assistant').nth(1).getByText(/\S/).first().waitFor();
    await page.getByText('Reply complete.').waitFor({ state: 'attached' });
    const last = bodies.at(-1) as { messages: Array<{ role: string; content: string }> };
    assert.ok(last.messages.every((m) => m.content !== ''), 'no empty message is sent');
    assert.deepEqual(last.messages.map((m) => m.role), ['user', 'assistant', 'user']);
    await shoot('console-02-chat');

    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Chat playground' }).waitFor();
    assert.equal(await page.locator('.message-user').count(), 2, 'the conversation survives a reload');
    assert.equal(await page.getByLabel('Max tokens').inputValue(), '40');
  });

  test('generations: running ones refresh on the list; the playground guards the balance and copies the request as code', async () => {
    const created = await api<{ taskId: string }>('POST', '/api/v1/generation/create', { model: 'z-image-turbo', input: { prompt: 'a slow lighthouse' } });
    await go('/generations');
    const row = page.locator('li, tr').filter({ hasText: 'a slow lighthouse' }).first();
    await row.getByText(/Queued|Processing/).waitFor();
    await row.getByText('Finished').waitFor({ timeout: 30_000 });
    assert.ok(created.taskId);

    // Spend the balance down to 5 cents, then ask for a 6.7-cent image.
    const me = await api<{ balance: number }>('GET', '/api/v1/user/me');
    await credit(5 - me.balance, 'console-spend-down');
    await go('/playground?model=nano-banana-2');
    await page.getByLabel(/^Prompt/).fill('a red fox in the snow');
    await page.getByText(/Estimated cost/).waitFor();
    await page.getByRole('alert').filter({ hasText: 'costs more than your balance' }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Generate' }).isDisabled(), true);
    assert.equal(await page.getByTestId('playground-balance').textContent(), 'Balance: $0.05');
    await page.getByText('Copy as code').click();
    const curl = await page.getByTestId('code-snippet').inputValue();
    assert.match(curl, /curl -s http:\/\/127\.0\.0\.1:\d+\/api\/v1\/generation\/create/);
    assert.ok(curl.includes('"model":"nano-banana-2"') && curl.includes('"prompt":"a red fox in the snow"'), curl);
    assert.ok(!curl.includes('sb_'), 'no key in the code');
    await page.getByRole('button', { name: 'Python' }).click();
    assert.match(await page.getByTestId('code-snippet').inputValue(), /requests\.post\([\s\S]*"prompt": "a red fox in the snow"/);
    await page.getByRole('button', { name: 'JavaScript' }).click();
    assert.match(await page.getByTestId('code-snippet').inputValue(), /await fetch\(/);
    await shoot('console-03-playground-guard');
    await credit(500, 'console-credit-2');
  });

  test('usage by API key on the overview; a link to the API docs', async () => {
    const key = await api<{ key: string; name: string }>('POST', '/api/v1/keys', { name: 'render farm' });
    const res = await fetch(`${gw.url}/api/v1/generation/create`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'z-image-turbo', input: { prompt: 'by key' } }),
    });
    assert.equal(res.status, 200);
    await go('/');
    const byKey = page.getByRole('region', { name: 'Spend by API key' });
    await byKey.getByText(/render farm/).waitFor();
    await byKey.getByText('Dashboard').waitFor();
    assert.equal(await page.getByRole('link', { name: 'API docs' }).getAttribute('href'), '/docs');
    await shoot('console-04-overview-by-key');
  });

  test('on a phone the navigation folds behind a menu button', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await go('/');
    const menu = page.getByRole('button', { name: 'Menu' });
    assert.equal(await menu.getAttribute('aria-expanded'), 'false');
    assert.equal(await page.getByRole('link', { name: 'Generations' }).isVisible(), false);
    await menu.click();
    assert.equal(await page.getByRole('button', { name: 'Close menu' }).getAttribute('aria-expanded'), 'true');
    await shoot('console-05-phone-menu');
    await page.getByRole('link', { name: 'Generations' }).click();
    await page.getByRole('heading', { level: 1, name: 'Generations' }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Menu' }).getAttribute('aria-expanded'), 'false', 'the menu closes on navigation');
    await page.setViewportSize({ width: 1280, height: 1000 });
  });

  test('the first administrator from ADMIN_TOKEN, on the account page', async () => {
    await go('/account');
    await page.getByLabel('ADMIN_TOKEN').fill('not the token');
    await page.getByRole('button', { name: 'Become administrator' }).click();
    await page.getByRole('alert').filter({ hasText: 'not the ADMIN_TOKEN' }).waitFor();
    await page.getByLabel('ADMIN_TOKEN').fill(ADMIN_TOKEN);
    await page.getByRole('button', { name: 'Become administrator' }).click();
    await page.getByRole('heading', { level: 1, name: 'Admin' }).waitFor();
    await page.getByText('Administrator').first().waitFor();
    await assertAccessibleBasics(page, 'admin after claiming');
    await shoot('console-06-admin');
    assert.deepEqual(pageErrors, []);
  });
});
