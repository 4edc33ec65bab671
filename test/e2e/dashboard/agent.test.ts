import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { ScriptedOrchestrator } from '../../fakes/scripted-orchestrator.ts';
import type { TestGateway } from '../../support/gateway.ts';
import { assertAccessibleBasics, browserSkipReason, screenshot } from './browser.ts';
import { openSignedInBrowser, type SignedInBrowser } from './signed-in-browser.ts';

/**
 * The dashboard's agent page in headless Chromium against a whole gateway in embedded mode: the
 * default orchestrator is the built-in local planner (real files from the local provider), and one
 * model (gpt-5.4) is routed to a scripted upstream to drive a model-change decision. Everything is
 * done with the page's own controls, and the thread updates from the event stream, never a reload.
 */
const skip = browserSkipReason();

async function sharpPng(width: number, height: number): Promise<Buffer> {
  const { default: sharp } = await import('sharp');
  return sharp({ create: { width, height, channels: 3, background: { r: 90, g: 110, b: 140 } } }).png().toBuffer();
}

describe('agent page in a browser', { skip }, () => {
  let signedIn: SignedInBrowser;
  let gw: TestGateway;
  let orchestrator: ScriptedOrchestrator;
  let page: Page;
  let conversationUrl = '';
  let pageErrors: string[] = [];

  const shoot = async (name: string) => {
    signedIn.shots.push(await screenshot(page, name));
  };
  const api = <T>(method: string, path: string, body?: unknown) => signedIn.api<T>(method, path, body);
  const send = async (text: string, limitUsd?: string) => {
    if (limitUsd !== undefined) await page.getByLabel('Spending limit (USD)').fill(limitUsd);
    await page.getByLabel('Message', { exact: true }).fill(text);
    await page.getByRole('button', { name: /^(Send|Queue)$/ }).click();
  };
  const lastAnswer = () => page.getByTestId('agent-answer').last();
  /** Starts something that makes a new answer and waits until that one (not an earlier one) completed. */
  const newAnswerCompleted = async (start: () => Promise<void>) => {
    const before = await page.getByTestId('agent-answer').count();
    await start();
    await page.getByTestId('agent-answer').nth(before).getByText('Completed').waitFor({ timeout: 60_000 });
  };

  before(async () => {
    orchestrator = await ScriptedOrchestrator.start('openai');
    signedIn = await openSignedInBrowser({
      name: 'agent',
      gateway: { configFile: { providers: { orch: orchestrator.provider() }, routes: { 'gpt-5.4': ['orch'] } } },
      context: { viewport: { width: 1280, height: 1000 } },
      creditCents: 500,
    });
    ({ gw, page, pageErrors } = signedIn);
  });

  after(async () => {
    await signedIn?.close();
    await orchestrator?.close();
  });

  test('a new conversation runs a request live: streamed answer, an image and a video inline, a title, steps and costs', async () => {
    await page.getByRole('link', { name: 'Agent' }).click();
    await page.getByRole('heading', { level: 1, name: 'Agent' }).waitFor();
    await page.getByText('No conversations yet.').waitFor();
    await assertAccessibleBasics(page, 'agent (empty)');
    await page.getByRole('button', { name: 'New conversation' }).click();
    // A draft: nothing is created on the server until the first message is sent.
    await page.waitForURL(/\/agent\/new$/);
    await page.getByTestId('draft-conversation').waitFor();
    assert.equal((await api<{ items: unknown[] }>('GET', '/api/v1/agent/conversations')).items.length, 0);
    await send('an image of a red fox in the snow, then a 5 second video of it', '1');
    await page.waitForURL(/\/agent\/c\/conv_/);
    conversationUrl = page.url();
    await page.getByTestId('stream-state').getByText('Live').waitFor();
    await lastAnswer().getByText('Completed').waitFor({ timeout: 60_000 });
    assert.match((await lastAnswer().getByTestId('agent-answer-text').textContent()) ?? '', /^Done\. Here is what I made:/);
    // The reply names its files (issue 21, item 9): each art_… id is a link to the file in the thread, not an id.
    assert.doesNotMatch((await lastAnswer().getByTestId('agent-answer-text').textContent()) ?? '', /art_/);
    const imageRef = lastAnswer().getByTestId('agent-answer-text').getByRole('link', { name: 'image 1' });
    assert.equal(await imageRef.locator('img').count(), 1, 'an image is linked with its thumbnail');
    const target = ((await imageRef.getAttribute('href')) ?? '').slice(1);
    assert.equal(await lastAnswer().locator(`figure[id="${target}"][data-artifact-type="image"]`).count(), 1, 'the link leads to the image in the thread');
    await lastAnswer().getByTestId('agent-answer-text').getByRole('link', { name: 'video 1' }).waitFor();
    await page.waitForFunction(() => {
      const img = document.querySelector('[data-testid="agent-artifact"] img') as HTMLImageElement | null;
      return img?.complete && img.naturalWidth > 0;
    });
    assert.equal(await lastAnswer().locator('[data-artifact-type="video"] video').count(), 1);
    // The title came from the first request, through the event stream.
    await page.getByTestId('conversation-title').getByText(/^Image of a red fox/).waitFor();
    await page.getByTestId('conversation-list').getByRole('link', { name: /^Image of a red fox/ }).waitFor();

    const panel = page.getByTestId('run-panel');
    await panel.getByTestId('run-status').getByText('Completed').waitFor();
    const runId = (await lastAnswer().getAttribute('data-run-id')) ?? '';
    const run = await api<{ costs: { settledMicroUsd: string; operations: Array<{ kind: string }> }; steps: unknown[] }>('GET', `/api/v1/agent/runs/${runId}`);
    assert.equal(await panel.getByTestId('run-steps').locator('tbody tr').count(), run.steps.length);
    assert.equal(await panel.getByTestId('run-costs').locator('tbody tr').count(), run.costs.operations.length);
    assert.equal(run.costs.operations.filter((o) => o.kind === 'generation').length, 2);
    assert.equal(await panel.getByTestId('run-total').textContent(), `$${(Number(run.costs.settledMicroUsd) / 1e6).toFixed(6).replace(/0{1,4}$/, '')}`);
    await assertAccessibleBasics(page, 'agent conversation');
    await shoot('20-agent-run');
  });

  test('a question is answered with its button, and the run goes on', async () => {
    await send('something for my bakery');
    const question = page.getByTestId('pending-question');
    await question.waitFor();
    await assertAccessibleBasics(page, 'agent question');
    await shoot('21-agent-question');
    await question.getByRole('button', { name: 'an image' }).click();
    await lastAnswer().getByText('Completed').waitFor({ timeout: 60_000 });
    assert.equal(await lastAnswer().locator('[data-testid="agent-artifact"] img').count(), 1);
    assert.equal(await question.count(), 0, 'the question is gone once answered');
  });

  test('a run past its limit waits for budget; a new limit and Resume finish it; Stop cancels another', async () => {
    await send('a 5 second video of waves', '0.000001');
    const panel = page.getByTestId('run-panel');
    await panel.getByTestId('run-status').getByText('Waiting for budget').waitFor();
    await panel.getByTestId('run-needed').waitFor();
    // Resume cannot help while the next step does not fit: disabled, with the limit that would fit.
    await panel.getByTestId('run-resume-hint').getByText(/save a limit of at least \$/).waitFor();
    assert.equal(await panel.getByRole('button', { name: 'Resume' }).isDisabled(), true);
    await shoot('22-agent-budget');
    await panel.getByLabel('New limit (USD)').fill('2');
    await panel.getByRole('button', { name: 'Save limit' }).click();
    await panel.getByTestId('run-limit').getByText('$2.00').waitFor();
    await panel.getByRole('button', { name: 'Resume' }).click();
    await lastAnswer().getByText('Completed').waitFor({ timeout: 60_000 });
    assert.equal(await lastAnswer().locator('[data-artifact-type="video"]').count(), 1);

    await send('a 5 second video of rain', '0.000001');
    await panel.getByTestId('run-status').getByText('Waiting for budget').waitFor();
    await panel.getByRole('button', { name: 'Stop run' }).click();
    await lastAnswer().getByText('Cancelled').waitFor();
  });

  test('a model change proposed by the orchestrator is accepted with its button', async () => {
    const created = await api<{ conversationId: string }>('POST', '/api/v1/agent/conversations', { title: 'Decisions', settings: { orchestratorModelId: 'gpt-5.4' } });
    orchestrator.plan(
      created.conversationId,
      { toolCalls: [{ name: 'propose_model_change', arguments: { modality: 'image', toModelId: 'z-image-turbo', reason: 'it draws foxes better' } }] },
      { toolCalls: [{ name: 'generate_image', arguments: { prompt: 'a fox' } }] },
      { text: 'Made with z-image-turbo.' },
    );
    await page.goto(`${gw.url}/agent/c/${created.conversationId}`);
    await page.getByTestId('stream-state').getByText('Live').waitFor();
    await send('a fox, please');
    const decision = page.getByTestId('pending-decision');
    await decision.getByText('z-image-turbo').waitFor();
    await shoot('23-agent-decision');
    await decision.getByRole('button', { name: 'Accept' }).click();
    await lastAnswer().getByText('Made with z-image-turbo.').waitFor({ timeout: 60_000 });
    const runId = (await lastAnswer().getAttribute('data-run-id')) ?? '';
    const run = await api<{ decisions: Array<{ status: string }>; steps: Array<{ name: string; output: { model?: string } | null }> }>('GET', `/api/v1/agent/runs/${runId}`);
    assert.equal(run.decisions[0]?.status, 'accepted');
    assert.equal(run.steps.find((s) => s.name === 'generate_image')?.output?.model, 'z-image-turbo');
  });

  test('files are dropped or picked, uploaded with progress, a mask is painted, and the edit runs; a structured result shows beside the artifacts', async () => {
    await page.goto(conversationUrl);
    await page.getByTestId('stream-state').getByText('Live').waitFor();
    const photo = await sharpPng(96, 64);
    await page.getByLabel('Files to attach').setInputFiles({ name: 'street.png', mimeType: 'image/png', buffer: photo });
    await page.locator('[data-testid="agent-upload"][data-status="ready"]').first().waitFor();
    // A text file dropped on the message box joins it.
    await page.evaluate(() => {
      const data = new DataTransfer();
      data.items.add(new File(['Keep the lamp posts.'], 'notes.txt', { type: 'text/plain' }));
      document.querySelector('[data-testid="agent-composer"]')?.dispatchEvent(new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true }));
    });
    await page.locator('[data-testid="agent-upload"][data-status="ready"]').nth(1).waitFor();
    await page.getByRole('button', { name: 'Paint mask' }).click();
    const canvas = page.getByTestId('mask-canvas');
    await canvas.waitFor();
    await canvas.scrollIntoViewIfNeeded();
    const box = await canvas.boundingBox();
    assert.ok(box);
    await page.mouse.move(box.x + box.width * 0.2, box.y + box.height * 0.2);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width * 0.5, box.y + box.height * 0.5, { steps: 8 });
    await page.mouse.up();
    await assertAccessibleBasics(page, 'agent mask painting');
    await shoot('24-agent-mask');
    await page.getByRole('button', { name: 'Use mask' }).click();
    await page.getByText('Mask for street.png', { exact: true }).waitFor();
    await page.locator('[data-testid="agent-upload"][data-status="ready"]').nth(2).waitFor();
    await newAnswerCompleted(() => send('make it look like winter'));
    await page.getByText('3 file(s) attached').waitFor();
    const runId = (await lastAnswer().getAttribute('data-run-id')) ?? '';
    const run = await api<{ steps: Array<{ name: string; input: { arguments?: { referenceArtifactIds?: string[] } }; output: { status?: string } | null }> }>('GET', `/api/v1/agent/runs/${runId}`);
    const edit = run.steps.find((s) => s.name === 'generate_image');
    assert.equal(edit?.output?.status, 'succeeded');
    assert.equal(edit?.input.arguments?.referenceArtifactIds?.length, 1, 'the planner referenced the attached photo (the engine sends its mask with it: agent-attachments.test.ts)');
    assert.equal(await page.getByTestId('agent-upload').count(), 0, 'the composer is empty again');

    // A structured result asked through the API shows in the thread.
    const conversationId = conversationUrl.split('/').pop() ?? '';
    await api('POST', `/api/v1/agent/conversations/${conversationId}/messages`, {
      content: [{ type: 'text', text: 'an image of a snowy street' }],
      outputSchema: { type: 'object', properties: { summary: { type: 'string' }, imageUrls: { type: 'array', items: { type: 'string' } } }, required: ['summary', 'imageUrls'], additionalProperties: false },
    });
    const structured = page.getByTestId('structured-result').last();
    await structured.waitFor({ timeout: 60_000 });
    const value = JSON.parse((await structured.textContent()) ?? '{}') as { summary: string; imageUrls: string[] };
    assert.match(value.summary, /^Done/);
    assert.equal(value.imageUrls.length, 1);
    await shoot('25-agent-structured');
  });

  test('a workflow starts from a form generated from its input schema', async () => {
    await page.goto(conversationUrl);
    await page.getByTestId('stream-state').getByText('Live').waitFor();
    await page.getByText('Start a workflow').click();
    await page.getByLabel('Workflow', { exact: true }).selectOption('cover-plus-music');
    await page.getByLabel('title', { exact: true }).fill('Night Drive');
    await page.getByLabel('mood', { exact: true }).fill('calm neon city at night');
    await page.getByLabel('genre (optional)').waitFor();
    await assertAccessibleBasics(page, 'agent workflow form');
    await newAnswerCompleted(() => page.getByRole('button', { name: 'Start workflow' }).click());
    assert.match((await lastAnswer().getByTestId('agent-answer-text').textContent()) ?? '', /^Cover plus music \(version 1\): 2 of 2 made\./);
    assert.equal(await lastAnswer().locator('[data-artifact-type="image"] img').count(), 1);
    assert.ok((await lastAnswer().locator('[data-artifact-type="audio"] audio').count()) >= 1);
    await shoot('26-agent-workflow');
  });

  test('search finds conversations by title and message text', async () => {
    await page.goto(conversationUrl);
    const list = page.getByTestId('conversation-list');
    await list.getByRole('link').nth(1).waitFor();
    await page.getByLabel('Search conversations').fill('bakery');
    await list.getByRole('link', { name: /^Image of a red fox/ }).waitFor();
    await list.getByRole('link', { name: 'Decisions' }).waitFor({ state: 'detached' });
    await page.getByLabel('Search conversations').fill('zebra');
    await page.getByText('No conversation matches.').waitFor();
    assert.deepEqual(pageErrors, [], 'no script errors on the page');
  });
});
