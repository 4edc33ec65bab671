import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { ScriptedOrchestrator } from '../../fakes/scripted-orchestrator.ts';
import type { TestGateway } from '../../support/gateway.ts';
import { assertAccessibleBasics, browserSkipReason } from './browser.ts';
import { openSignedInBrowser, type SignedInBrowser } from './signed-in-browser.ts';

/**
 * The agent composer's choices in headless Chromium against a whole gateway in embedded mode, on a
 * laptop (1366×900) and a phone (390×844): a manual conversation with a model picked by name and an
 * assistant profile, context references to another conversation as chips, and a structured output
 * schema (a broken one refused in place without a request, the server's refusal in words, a valid
 * one giving a structured result in the thread). gpt-5.4 is routed to a scripted upstream, so the
 * test reads what the run's model was sent.
 */
const skip = browserSkipReason();
const MANUAL_MODEL = 'gpt-5.4';
const RESULT_SCHEMA = {
  type: 'object',
  properties: { summary: { type: 'string' }, imageUrls: { type: 'array', items: { type: 'string' } } },
  required: ['summary', 'imageUrls'],
  additionalProperties: false,
};

interface ConversationRecord {
  conversationId: string;
  mode: string;
  selectedModelId: string | null;
  profileId: string | null;
}

describe('agent composer in a browser', { skip }, () => {
  let signedIn: SignedInBrowser;
  let gw: TestGateway;
  let orchestrator: ScriptedOrchestrator;
  let page: Page;
  let sourceId = '';
  let manualUrl = '';
  let pageErrors: string[] = [];
  /** Requests that would create or send something (counted to prove a refusal sent nothing). */
  const writes: string[] = [];

  const api = <T>(method: string, path: string, body?: unknown) => signedIn.api<T>(method, path, body);
  const lastAnswer = () => page.getByTestId('agent-answer').last();
  const shootBoth = (name: string) => signedIn.shootBoth(page, name);

  before(async () => {
    orchestrator = await ScriptedOrchestrator.start('openai');
    signedIn = await openSignedInBrowser({
      name: 'agent-composer',
      gateway: { configFile: { providers: { orch: orchestrator.provider() }, routes: { [MANUAL_MODEL]: ['orch'] } } },
      creditCents: 500,
      creditNote: 'agent composer e2e',
    });
    ({ gw, page, pageErrors } = signedIn);
    page.on('request', (request) => {
      if (request.method() !== 'GET' && /\/api\/v1\/agent\/conversations/.test(request.url())) writes.push(`${request.method()} ${new URL(request.url()).pathname}`);
    });
    sourceId = (await api<{ conversationId: string }>('POST', '/api/v1/agent/conversations', { title: 'Harbour notes' })).conversationId;
    await api('POST', '/api/v1/agent/conversations', { title: 'Unrelated errands' });
  });

  after(async () => {
    await signedIn?.close();
    await orchestrator?.close();
  });

  test('a manual conversation with a model picked by name, a profile and context from another conversation', async () => {
    const models = await api<Array<{ id: string; name: string; type: string; executable: boolean }>>('GET', '/api/v1/agent/models');
    const manual = models.find((m) => m.id === MANUAL_MODEL);
    assert.ok(manual, `${MANUAL_MODEL} is offered`);
    assert.notEqual(manual.name, manual.id, 'the test tells a name from an id');

    await page.goto(`${gw.url}/agent/new`);
    await page.getByTestId('draft-conversation').waitFor();
    writes.length = 0;
    assert.equal(await page.getByLabel('Model', { exact: true }).count(), 0, 'no model picker in automatic mode');
    await page.getByLabel(/Manual: you pick/).check();
    const picker = page.getByLabel('Model', { exact: true });
    await picker.locator(`option[value="${manual.id}"]`).waitFor({ state: 'attached' });
    // Names, not ids, grouped by what the models make.
    const options = await picker.locator('option').evaluateAll((list) => list.map((o) => ({ text: o.textContent ?? '', value: (o as HTMLOptionElement).value })));
    assert.ok(options.every((o) => o.value === '' || o.text !== o.value || models.find((m) => m.id === o.value)?.name === o.value), 'options show names');
    const groups = await picker.locator('optgroup').evaluateAll((list) => list.map((g) => g.getAttribute('label') ?? ''));
    assert.ok(groups.includes('Text models (plan the run and write)') && groups.includes('Image models'), `grouped by kind: ${groups.join(', ')}`);
    assert.equal(await picker.locator('optgroup[label="Image models"] option').count(), models.filter((m) => m.type === 'IMAGE' && m.executable).length);

    // Sending without a model says so in place and creates nothing.
    await page.getByLabel('Message', { exact: true }).fill('a storyboard for a harbour at dawn');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByText('Choose the model that makes the result, or switch to Automatic.').waitFor();
    assert.equal(writes.length, 0, writes.join(", "));

    await picker.selectOption({ label: manual.name });
    await page.getByLabel('Assistant profile').selectOption({ label: 'Filmmaker' });
    await page.getByText('Storyboards, shots and soundtracks.').waitFor();

    const contextBox = page.getByTestId('context-references');
    await contextBox.getByRole('button', { name: 'Add context' }).click();
    await contextBox.getByLabel('Find a conversation').fill('Harbour');
    await contextBox.getByRole('button', { name: 'Unrelated errands' }).waitFor({ state: 'detached' });
    await contextBox.getByRole('button', { name: 'Add Harbour notes' }).click();
    await contextBox.getByTestId('context-chip').getByText('Harbour notes').waitFor();
    await contextBox.getByRole('button', { name: 'Done' }).click();
    await assertAccessibleBasics(page, 'agent draft with choices');
    await shootBoth('draft-manual');
    assert.equal(writes.length, 0, 'nothing is saved before the first message');

    await page.getByRole('button', { name: 'Send' }).click();
    await page.waitForURL(/\/agent\/c\/conv_/);
    manualUrl = page.url();
    await lastAnswer().getByText('Completed').waitFor({ timeout: 60_000 });
    const conversationId = manualUrl.split('/').pop() ?? '';

    // The server recorded the choices.
    const record = await api<ConversationRecord>('GET', `/api/v1/agent/conversations/${conversationId}`);
    assert.equal(record.mode, 'manual');
    assert.equal(record.selectedModelId, MANUAL_MODEL);
    assert.equal(record.profileId, 'filmmaker');
    const refs = await api<{ version: number; references: Array<{ targetId: string }> }>('GET', `/api/v1/agent/conversations/${conversationId}/context-references`);
    assert.deepEqual(refs.references.map((r) => r.targetId), [sourceId]);
    // The run was driven by the picked model, and its model was told of the profile and the referenced conversation.
    const runId = (await lastAnswer().getAttribute('data-run-id')) ?? '';
    assert.equal((await api<{ orchestratorModelId: string }>('GET', `/api/v1/agent/runs/${runId}`)).orchestratorModelId, MANUAL_MODEL);
    const sent = JSON.stringify(orchestrator.callsFor(conversationId)[0] ?? {});
    assert.match(sent, /Profile: Filmmaker/);
    assert.ok(sent.includes(sourceId), 'the run carries the context reference');

    // The thread says how it works, in words.
    await page.getByTestId('conversation-mode').getByText(`Manual: ${manual.name}`).waitFor();
    await page.getByTestId('conversation-profile').getByText('Profile: Filmmaker').waitFor();
    const chips = page.getByTestId('context-references').getByTestId('context-chip');
    await chips.getByText('Harbour notes').waitFor();
    await assertAccessibleBasics(page, 'agent manual conversation');
    await shootBoth('thread-manual');

    // A chip is removed, and another reference added, each saved with the version read.
    await page.getByRole('button', { name: 'Remove Harbour notes from the context' }).click();
    await chips.waitFor({ state: 'detached' });
    const cleared = await api<{ version: number; references: unknown[] }>('GET', `/api/v1/agent/conversations/${conversationId}/context-references`);
    assert.deepEqual(cleared.references, []);
    assert.equal(cleared.version, refs.version + 1);
    await page.getByTestId('context-references').getByRole('button', { name: 'Add context' }).click();
    await page.getByTestId('context-references').getByRole('button', { name: 'Add Unrelated errands' }).click();
    await chips.getByText('Unrelated errands').waitFor();
    const again = await api<{ references: Array<{ targetId: string }> }>('GET', `/api/v1/agent/conversations/${conversationId}/context-references`);
    assert.equal(again.references.length, 1);
    assert.notEqual(again.references[0]?.targetId, sourceId);
  });

  test('a result schema: broken JSON and an oversized text are refused in place with no request, the server refusal is in words, a valid one gives a structured result', async () => {
    await page.goto(`${gw.url}/agent/new`);
    await page.getByTestId('draft-conversation').waitFor();
    writes.length = 0;
    await page.getByText('Structured output').click();
    const schema = page.getByLabel('Result schema (JSON)');
    await page.getByLabel('Message', { exact: true }).fill('an image of a lighthouse');

    await schema.fill('{"type": "object",\n  "properties": {');
    const error = page.getByTestId('schema-error');
    await error.getByText(/^The schema is not valid JSON/).waitFor();
    await page.getByRole('button', { name: 'Send' }).click();
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'draft-schema', 'the refused schema gets the focus');
    assert.equal(writes.length, 0, 'a broken schema sends nothing');
    await shootBoth('schema-invalid');

    await schema.fill(`{"type": "object", "description": "${'x'.repeat(240_001)}"}`);
    await error.getByText(/at most 240,000 are accepted/).waitFor();
    await page.getByRole('button', { name: 'Send' }).click();
    assert.equal(writes.length, 0, 'an oversized schema sends nothing');

    // Valid JSON outside the supported subset: the server refuses it before any charge; its pointer reads as words.
    await schema.fill(JSON.stringify({ ...RESULT_SCHEMA, additionalProperties: true }, null, 2));
    await page.getByRole('button', { name: 'Send' }).click();
    await error.getByText(/^The result format is not valid at the top level, its extra-fields setting:/).waitFor();
    const words = (await error.textContent()) ?? '';
    assert.doesNotMatch(words, /outputSchema|\/|additionalProperties/, `no JSON pointer or field name in "${words}"`);
    assert.equal(writes.filter((w) => w.endsWith('/messages')).length, 1);
    await page.getByTestId('draft-created').waitFor();

    // Fixed, it is sent into the conversation already made.
    await schema.fill(JSON.stringify(RESULT_SCHEMA, null, 2));
    await page.getByLabel('Always extract with a model (billed)').check();
    await page.getByLabel('Automatic: known fields filled without a model call when possible').check();
    await page.getByRole('button', { name: 'Send' }).click();
    await page.waitForURL(/\/agent\/c\/conv_/);
    assert.equal(writes.filter((w) => w === 'POST /api/v1/agent/conversations').length, 1, 'one conversation for both tries');
    const structured = page.getByTestId('structured-result').last();
    await structured.waitFor({ timeout: 60_000 });
    const value = JSON.parse((await structured.textContent()) ?? '{}') as { summary: string; imageUrls: string[] };
    assert.match(value.summary, /^Done/);
    assert.equal(value.imageUrls.length, 1);
    const runId = (await lastAnswer().getAttribute('data-run-id')) ?? '';
    assert.ok((await api<{ schemaHash: string | null }>('GET', `/api/v1/agent/runs/${runId}/result`)).schemaHash, 'the run has the schema');
    await shootBoth('structured-result');

    // The open conversation's composer refuses a broken schema in place too.
    writes.length = 0;
    await page.getByText('Structured output').click();
    await page.getByLabel('Result schema (JSON)').fill('{oops}');
    await page.getByTestId('schema-error').getByText(/^The schema is not valid JSON/).waitFor();
    await page.getByLabel('Message', { exact: true }).fill('another one');
    await page.getByRole('button', { name: 'Send' }).click();
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'composer-schema');
    assert.equal(writes.length, 0, writes.join(", "));
    assert.deepEqual(pageErrors, [], 'no script errors on the page');
  });
});
