import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import type { TestGateway } from '../../support/gateway.ts';
import { assertAccessibleBasics, browserSkipReason } from './browser.ts';
import { openSignedInBrowser, type SignedInBrowser } from './signed-in-browser.ts';

/**
 * Playground uploads (issue 21, item 16), in headless Chromium against an embedded gateway on the
 * built-in local provider, at a laptop (1366×900) and a phone (390×844): a picture from disk for an
 * edit model's image field becomes a gateway file URL, the task finishes, and the model received that
 * URL; the Suno form's action names and modes. Screenshots: uploads-*-wide.png and uploads-*-phone.png.
 */
const skip = browserSkipReason();

async function sharpPng(width: number, height: number): Promise<Buffer> {
  const { default: sharp } = await import('sharp');
  return sharp({ create: { width, height, channels: 3, background: { r: 60, g: 120, b: 180 } } }).png().toBuffer();
}

describe('playground uploads at laptop and phone widths', { skip }, () => {
  let signedIn: SignedInBrowser;
  let gw: TestGateway;
  let page: Page;
  let pageErrors: string[] = [];

  const api = <T>(method: string, path: string, body?: unknown) => signedIn.api<T>(method, path, body);
  const shootBoth = (name: string) => signedIn.shootBoth(page, name);

  before(async () => {
    signedIn = await openSignedInBrowser({ name: 'uploads', creditCents: 500 });
    ({ gw, page, pageErrors } = signedIn);
  });

  after(async () => {
    await signedIn?.close();
  });

  test('an edit model: a picture from disk fills the image field with a gateway file URL; the task finishes with it', async () => {
    await page.goto(`${gw.url}/playground?model=nano-banana-2`);
    await page.locator('h1').first().waitFor();
    await page.getByLabel(/^Prompt/).fill('the same lake at dawn');
    await page.getByRole('button', { name: 'Add URL' }).first().click();
    const picture = await sharpPng(640, 480);
    await page.getByLabel(/^Upload a file for /).first().setInputFiles({ name: 'lake.png', mimeType: 'image/png', buffer: picture });
    const urlField = page.locator('.media-field input[type="url"]').first();
    await page.waitForFunction(() => (document.querySelector('.media-field input[type="url"]') as HTMLInputElement | null)?.value.includes('/files/') === true);
    const url = await urlField.inputValue();
    assert.ok(url.startsWith(`${gw.url}/files/`), `the field holds a gateway file URL: ${url}`);
    const served = await fetch(url);
    assert.equal(served.status, 200, 'the gateway serves the uploaded original');
    assert.deepEqual(Buffer.from(await served.arrayBuffer()), picture, 'the original is the picture from disk');
    await assertAccessibleBasics(page, 'playground with an uploaded picture');
    await shootBoth('edit-uploaded');

    await page.getByRole('button', { name: 'Generate' }).click();
    const status = page.getByTestId('task-status');
    await status.getByText('Finished').waitFor({ timeout: 60_000 });
    const taskId = (await page.locator('a.mono[href^="/generations/"]').first().textContent()) ?? '';
    const detail = await api<{ status: string; input: Record<string, unknown> }>('GET', `/api/v1/generation/${encodeURIComponent(taskId)}`);
    const sent = Object.values(detail.input).flat().filter((v): v is string => typeof v === 'string' && v.startsWith('http'));
    assert.deepEqual(sent, [url], 'the model received the gateway file URL');
    await shootBoth('edit-finished');
    assert.deepEqual(pageErrors, []);
  });

  test('Suno (issue 21, item 11): actions have readable names; simple and custom mode fields are never shown together', async () => {
    await page.goto(`${gw.url}/playground?model=suno`);
    const action = page.getByLabel(/^Action/);
    await action.waitFor();
    assert.equal(await action.locator('option[value="music"]').textContent(), 'Create a song (default)');
    assert.equal(await action.locator('option[value="bpm"]').textContent(), 'Detect tempo (BPM)');
    await page.getByLabel(/^Description/).waitFor();
    assert.equal(await page.getByLabel(/^Tags/).count(), 0, 'simple mode shows no style');
    await page.getByLabel('Custom', { exact: true }).check();
    await page.getByLabel(/^Tags/).waitFor();
    assert.equal(await page.getByLabel(/^Description/).count(), 0, 'custom mode shows no description');
    await page.getByLabel(/^Prompt/).waitFor();
    await shootBoth('suno-custom-mode');
    assert.deepEqual(pageErrors, []);
  });

  test('Suno: Extend on a track opens with continueAt at its last whole second, with a hint', async () => {
    const created = await api<{ taskId: string }>('POST', '/api/v1/generation/create', { model: 'suno', input: { action: 'music', gptDescriptionPrompt: 'a short tune about tea' } });
    await page.goto(`${gw.url}/generations/${created.taskId}`);
    const track = page.getByTestId('music-track').first();
    await track.waitFor({ timeout: 60_000 });
    const status = await api<{ output: { tracks: Array<{ duration: number }> } | null }>('GET', `/api/v1/task/status/${created.taskId}`);
    const duration = status.output?.tracks[0]?.duration ?? 0;
    await track.getByRole('link', { name: 'Extend' }).click();
    const continueAt = page.getByLabel(/^Continue at/);
    await continueAt.waitFor();
    assert.equal(await continueAt.inputValue(), String(Math.floor(duration - 1)));
    assert.ok(Number(await continueAt.inputValue()) < duration, 'below the track\'s length');
    await page.getByText(/below the track’s length/).waitFor();
    await shootBoth('suno-extend');
  });
});
