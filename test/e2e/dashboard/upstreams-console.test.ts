/**
 * The operator's console for live upstreams (issue 32, item 8), in headless Chromium against an
 * embedded gateway, at laptop and phone widths: add a provider with a key, add a second key and
 * switch the first off (a rotation), test the keys, route a model to it and see its state and share,
 * change a price and see the catalog's new price, read the change log, and read the day's margins per
 * route with a loss flagged; no secret on the page, and nothing scrolls sideways on the phone.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { OpenAiChatFake } from '../../fakes/openai-chat.fake.ts';
import { ADMIN_TOKEN, type TestGateway } from '../../support/gateway.ts';
import { browserSkipReason, PHONE, WIDE } from './browser.ts';
import { openSignedInBrowser, type SignedInBrowser } from './signed-in-browser.ts';

const skip = browserSkipReason();
const KEY_OLD = 'sk-console-old-0000000000000000aaaa';
const KEY_NEW = 'sk-console-new-1111111111111111bbbb';

describe('the upstreams console at laptop and phone widths', { skip }, () => {
  let signedIn: SignedInBrowser;
  let gw: TestGateway;
  let page: Page;
  let fake: OpenAiChatFake;

  const noSecretOnPage = async (where: string) => {
    const html = await page.content();
    for (const secret of [KEY_OLD, KEY_NEW]) assert.ok(!html.includes(secret), `${where} shows a secret`);
  };
  const fitsThePhone = async (where: string) => {
    await page.setViewportSize(PHONE);
    const { scrollWidth, clientWidth } = await page.evaluate(() => ({ scrollWidth: document.documentElement.scrollWidth, clientWidth: document.documentElement.clientWidth }));
    assert.ok(scrollWidth <= clientWidth, `${where}: ${scrollWidth} > ${clientWidth}`);
    await page.setViewportSize(WIDE);
  };

  before(async () => {
    fake = await OpenAiChatFake.start({ apiKey: 'sk-console-unused-key-000000000000' });
    fake.moreKeys.add(KEY_OLD);
    fake.moreKeys.add(KEY_NEW);
    signedIn = await openSignedInBrowser({ name: 'upstreams', creditCents: 500 });
    ({ gw, page } = signedIn);
    await signedIn.go(page, '/account');
    await page.getByLabel('ADMIN_TOKEN').fill(ADMIN_TOKEN);
    await page.getByRole('button', { name: 'Become administrator' }).click();
    await page.getByRole('heading', { level: 1, name: /Admin/ }).waitFor();
  });

  after(async () => {
    await signedIn?.close();
    await fake?.close();
  });

  test('add a provider with a key, rotate to a new key, test them: hints only, states in words', async () => {
    await page.getByRole('link', { name: 'Manage providers, keys, routes and prices' }).click();
    await page.getByRole('heading', { level: 1, name: 'Upstreams, routes and prices' }).waitFor();
    await page.getByText('Add a provider').click();
    await page.getByLabel('Name').fill('console-pool');
    await page.getByLabel('API style').fill('openai');
    await page.getByLabel('Base URL').fill(fake.baseUrl);
    await page.getByLabel('First key').fill(KEY_OLD);
    await page.getByRole('button', { name: 'Add provider' }).click();
    await page.getByRole('status').getByText('Provider console-pool added').waitFor();
    const card = page.getByRole('article').filter({ has: page.getByRole('heading', { name: /console-pool/ }) });
    await card.getByRole('cell', { name: 'sk-…aaaa' }).waitFor();

    await card.getByLabel('New key').fill(KEY_NEW);
    await card.getByLabel('Label (optional)').fill('rotated in');
    await card.getByRole('button', { name: 'Add key' }).click();
    await card.getByRole('cell', { name: 'sk-…bbbb' }).waitFor();
    assert.equal(await card.getByLabel('New key').inputValue(), '', 'the secret field is cleared after saving');
    await card.getByRole('button', { name: 'Switch off key sk-…aaaa of console-pool' }).click();
    await card.getByRole('button', { name: 'Switch on key sk-…aaaa of console-pool' }).waitFor();
    await card.getByText('Switched off: gets no requests until switched on.').waitFor();

    fake.moreKeys.delete(KEY_OLD);
    await card.getByRole('button', { name: 'Test the keys of console-pool' }).click();
    const results = card.getByRole('list', { name: 'Test results of console-pool' });
    await results.getByText(/sk-…bbbb: works \(GET \/v1\/models, \d+ ms\)/).waitFor();
    await results.getByText(/sk-…aaaa: failed: .*(refused|401)/).waitFor();
    const pool = await gw.admin<{ keys: Array<{ hint: string; enabled: boolean; state: string }> }>('GET', '/admin/v1/providers/console-pool');
    assert.deepEqual(pool.keys.map((k) => [k.hint, k.enabled]), [['sk-…aaaa', false], ['sk-…bbbb', true]]);
    await noSecretOnPage('the providers section');
    await fitsThePhone('the providers section');
  });

  test('route a model to the provider and see each entry with its state and share of traffic', async () => {
    await page.getByLabel('Model').first().fill('gpt-5.4');
    await page.getByRole('button', { name: 'Show route' }).click();
    await page.getByText('No route of its own').waitFor();
    await page.locator('#entry-provider-0').fill('console-pool');
    await page.locator('#entry-model-0').fill('gpt-console');
    await page.getByRole('button', { name: 'Save route' }).click();
    await page.getByRole('status').getByText('The route of gpt-5.4 is saved').waitFor();
    await page.getByText('Changed live (version 1).').waitFor();
    const { key } = await gw.createUser(100);
    for (let i = 0; i < 3; i++) assert.equal((await gw.api(key, 'POST', '/api/v1/chat/completions', { model: 'gpt-5.4', messages: [{ role: 'user', content: 'hi' }], max_tokens: 5 })).status, 200);
    assert.ok(fake.requests.some((r) => (r.body as { model?: string } | undefined)?.model === 'gpt-console'));
    await page.getByRole('button', { name: 'Show route' }).click();
    const table = page.getByRole('region', { name: 'Route of gpt-5.4' });
    await table.getByRole('cell', { name: '100 % (3)' }).waitFor();
    await table.getByText('Healthy').waitFor();
    await fitsThePhone('the routes section');
  });

  test('change a price: the catalog shows it at once; the change log says who changed what, with hints only', async () => {
    await page.locator('#price-model').fill('gpt-5.4-mini');
    await page.getByRole('button', { name: 'Show prices' }).click();
    await page.getByTestId('current-price').waitFor();
    await page.getByLabel('Input, USD per 1M tokens (text models)').fill('7.5');
    await page.getByLabel('Output, USD per 1M tokens').fill('45');
    await page.getByRole('button', { name: 'Save prices' }).click();
    await page.getByRole('status').getByText('gpt-5.4-mini saved').waitFor();
    const cost = (await gw.api(undefined, 'GET', '/api/v1/cost/gpt-5.4-mini')).body as { tokens: { input: string; output: string } };
    assert.deepEqual([cost.tokens.input, cost.tokens.output], ['7.5', '45']);
    await page.getByText('Changed live (version 1).').last().waitFor();

    await page.reload();
    const log = page.getByRole('region', { name: 'Changes to upstream settings' });
    await log.getByText('model gpt-5.4-mini set').waitFor();
    await log.getByText('route gpt-5.4 set').waitFor();
    await log.getByText(/key console-pool\/upk_\w+ set/).waitFor();
    await noSecretOnPage('the change log');
    await fitsThePhone('the whole page');
  });

  test("margins: the day's revenue, upstream cost and margin per route as the report has them, a route costing more than the price flagged", async () => {
    const route = { entries: [{ provider: 'console-pool', model: 'gpt-mini-console', cost: { inputPrice: '1', outputPrice: '90' } }] };
    await gw.admin('PUT', '/admin/v1/routes/gpt-5.4-mini', route);
    const { key } = await gw.createUser(100);
    for (let i = 0; i < 2; i++) assert.equal((await gw.api(key, 'POST', '/api/v1/chat/completions', { model: 'gpt-5.4-mini', messages: [{ role: 'user', content: `margin ${i}` }], max_tokens: 5 })).status, 200);
    type Row = { provider: string | null; upstreamModel: string | null; requests: number; revenueMicroUsd: string; upstreamCostMicroUsd: string; marginMicroUsd: string | null; atLoss: boolean };
    const report = await gw.admin<{ data: Row[] }>('GET', '/admin/v1/reports/routes?range=today&model=gpt-5.4-mini');
    const expected = report.data.find((r) => r.upstreamModel === 'gpt-mini-console');
    assert.ok(expected && expected.requests === 2 && expected.atLoss && Number(expected.marginMicroUsd) < 0, JSON.stringify(report.data));

    await page.reload();
    const table = page.getByRole('region', { name: 'Revenue, upstream cost and margin per day, model and provider' });
    const row = table.getByRole('row').filter({ hasText: 'console-pool (as gpt-mini-console)' });
    await row.getByText('Costs more than the price').waitFor();
    const cells = await row.getByRole('cell').allInnerTexts();
    const micro = (text: string | undefined) => Math.round(Number(String(text).replace(/[$,]/g, '')) * 1e6);
    // Model, provider, requests, revenue, upstream cost, margin, failed over, errors.
    assert.equal(cells[2], '2');
    assert.deepEqual([micro(cells[3]), micro(cells[4]), micro(cells[5])], [Number(expected.revenueMicroUsd), Number(expected.upstreamCostMicroUsd), Number(expected.marginMicroUsd)]);
    assert.deepEqual([cells[6], cells[7]], ['0 %', '0 %']);
    await page.getByTestId('margins-totals').getByText(/requests: revenue \$/).waitFor();
    await noSecretOnPage('the margins section');
    await fitsThePhone('the margins section');
  });
});
