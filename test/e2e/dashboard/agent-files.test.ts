import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import type { TestGateway } from '../../support/gateway.ts';
import { browserSkipReason, screenshot } from './browser.ts';
import { openSignedInBrowser, type SignedInBrowser } from './signed-in-browser.ts';

/**
 * Issue 21 items 1 and 2 in the browser, with the built-in planner (embedded mode): a mask painted
 * on a photo reaches the image model as the photo first and the mask second, and a sound file given
 * for analysis is reported in the page's run panel, at desktop and phone sizes.
 */
const skip = browserSkipReason();

async function photoPng(): Promise<Buffer> {
  const { default: sharp } = await import('sharp');
  return sharp({ create: { width: 96, height: 64, channels: 3, background: { r: 30, g: 120, b: 200 } } }).png().toBuffer();
}

/** A quarter second of silence as 16-bit mono WAV. */
function silenceWav(): Buffer {
  const samples = 2000;
  const header = Buffer.alloc(44);
  header.write('RIFF', 0);
  header.writeUInt32LE(36 + samples * 2, 4);
  header.write('WAVEfmt ', 8);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(8000, 24);
  header.writeUInt32LE(16000, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36);
  header.writeUInt32LE(samples * 2, 40);
  return Buffer.concat([header, Buffer.alloc(samples * 2)]);
}

describe('agent files in a browser (issue 21 items 1 and 2)', { skip }, () => {
  let signedIn: SignedInBrowser;
  let gw: TestGateway;
  let page: Page;
  let shots: string[] = [];
  let pageErrors: string[] = [];
  const api = <T>(method: string, path: string, body?: unknown) => signedIn.api<T>(method, path, body);

  before(async () => {
    signedIn = await openSignedInBrowser({ name: 'agent-files', creditCents: 500, creditNote: 'agent files e2e' });
    ({ gw, page, shots, pageErrors } = signedIn);
  });

  after(async () => {
    await signedIn?.close();
  });

  /** A conversation is created by its first message (a draft until then); resolves with its id once that answer completed. */
  const startConversation = async (): Promise<string> => {
    await page.goto(`${gw.url}/agent/new`);
    await page.getByTestId('draft-conversation').waitFor();
    await send('an image of a lighthouse');
    await page.waitForURL(/\/agent\/c\/conv_/);
    await page.getByTestId('stream-state').getByText('Live').waitFor();
    await page.getByTestId('agent-answer').last().getByText('Completed').waitFor({ timeout: 60_000 });
    return page.url().split('/').pop() ?? '';
  };
  const send = async (text: string) => {
    await page.getByLabel('Message', { exact: true }).fill(text);
    await page.getByRole('button', { name: /^(Send|Queue)$/ }).click();
  };

  test('item 1: a painted mask goes to the image model after its photo, and its row is named after the photo', async () => {
    const conversationId = await startConversation();
    await page.getByLabel('Files to attach').setInputFiles({ name: 'harbour.png', mimeType: 'image/png', buffer: await photoPng() });
    await page.locator('[data-testid="agent-upload"][data-status="ready"]').first().waitFor();
    await page.getByRole('button', { name: 'Paint mask' }).click();
    const canvas = page.getByTestId('mask-canvas');
    await canvas.scrollIntoViewIfNeeded();
    const box = await canvas.boundingBox();
    assert.ok(box);
    await page.mouse.move(box.x + box.width * 0.3, box.y + box.height * 0.3);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width * 0.6, box.y + box.height * 0.6, { steps: 6 });
    await page.mouse.up();
    await page.getByRole('button', { name: 'Use mask' }).click();
    await page.getByText('Mask for harbour.png', { exact: true }).waitFor();
    await page.locator('[data-testid="agent-upload"][data-status="ready"]').nth(1).waitFor();
    shots.push(await screenshot(page, 'agent-files-01-mask'));
    const before = await page.getByTestId('agent-answer').count();
    await send('replace the masked region with a red boat');
    await page.getByTestId('agent-answer').nth(before).getByText('Completed').waitFor({ timeout: 60_000 });

    const runId = (await page.getByTestId('agent-answer').last().getAttribute('data-run-id')) ?? '';
    const run = await api<{ steps: Array<{ name: string; output: { status?: string; generationId?: string } | null }> }>('GET', `/api/v1/agent/runs/${runId}`);
    const edit = run.steps.find((s) => s.name === 'generate_image');
    assert.equal(edit?.output?.status, 'succeeded', JSON.stringify(run.steps));
    const { db } = gw.gateway.services.database;
    const attachments = await db.selectFrom('agent_attachments').select(['id', 'name']).where('conversation_id', '=', conversationId).execute();
    const byName = new Map(attachments.map((a) => [a.id, a.name]));
    const task = await db.selectFrom('tasks').select(['input_json']).where('id', '=', String(edit?.output?.generationId)).executeTakeFirstOrThrow();
    const urls = Object.values(JSON.parse(task.input_json) as Record<string, unknown>).find((v): v is string[] => Array.isArray(v)) ?? [];
    const sent = urls.map((url) => [...byName].find(([id]) => url.includes(id))?.[1] ?? url);
    assert.equal(sent.length, 2, `the model got the photo and the mask: ${JSON.stringify(urls)}`);
    assert.equal(sent[0], 'harbour.png', 'the photo first');
    assert.notEqual(sent[1], 'harbour.png', 'the mask second');
  });

  test('item 2: a sound given for analysis is reported in the run panel, at both sizes', async () => {
    const conversationId = await startConversation();

    // The file is given for analysis with the composer's own control.
    await page.getByLabel('Files to attach').setInputFiles({ name: 'jingle.wav', mimeType: 'audio/wav', buffer: silenceWav() });
    await page.locator('[data-testid="agent-upload"][data-status="ready"]').first().waitFor();
    await page.getByLabel('How to use jingle.wav').selectOption({ label: 'Read or look at it' });
    const sent = page.waitForRequest((r) => r.method() === 'POST' && r.url().endsWith(`/api/v1/agent/conversations/${conversationId}/messages`));
    const before = await page.getByTestId('agent-answer').count();
    await send('an image inspired by this sound');
    const content = ((await sent).postDataJSON() as { content: Array<{ type: string; usageIntent?: string }> }).content;
    assert.deepEqual(
      content.filter((b) => b.type === 'attachment').map((b) => b.usageIntent),
      ['analyze'],
    );
    // The page learns of the run from the event stream, with no reload.
    const answer = page.getByTestId('agent-answer').nth(before);
    await answer.getByText('Completed').waitFor({ timeout: 60_000 });
    const notices = page.getByTestId('run-panel').getByTestId('run-notices');
    await notices.getByText(/^jingle\.wav was not analysed: this gateway has no model analysis of sound files/).waitFor();
    shots.push(await screenshot(page, 'agent-files-02-notice'));

    await page.setViewportSize({ width: 390, height: 844 });
    await page.reload();
    await page.getByTestId('run-panel').getByTestId('run-notices').getByText(/^jingle\.wav was not analysed/).waitFor();
    const widths = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
    assert.ok(widths.scroll <= widths.client, `the run with a notice does not scroll sideways on a phone (${widths.scroll} > ${widths.client})`);
    shots.push(await screenshot(page, 'agent-files-03-notice-phone'));
    assert.deepEqual(pageErrors, []);
  });
});
