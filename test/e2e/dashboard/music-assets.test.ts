import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import type { TestGateway } from '../../support/gateway.ts';
import { assertAccessibleBasics, browserSkipReason, PHONE, WIDE } from './browser.ts';
import { openSignedInBrowser, type SignedInBrowser } from './signed-in-browser.ts';

/**
 * Issue 21, items 11 and 12, in headless Chromium against an embedded gateway on the built-in local
 * provider, at a laptop (1366×900) and a phone (390×844, no sideways scroll): the Suno form marks
 * the fields its action and mode require (a voice's recording or track, one of the two) and refuses
 * Generate naming the missing ones; a song's players sit in their track cards; a project imports an
 * artifact and a generation's file through the picker; an unknown source reads differently from a
 * missing plan; a long file name in Storage wraps and leaves Delete in view, upright and sideways;
 * deleting the project's logo on the Storage page warns first, and the project page then says the
 * logo was deleted and takes another. Screenshots: music-assets-*-wide.png and music-assets-*-phone.png.
 */
const skip = browserSkipReason();
/** A phone turned sideways: wider than the stacking breakpoint (760 px), so the Files table is a table. */
const PHONE_LANDSCAPE = { width: 844, height: 390 };

describe('music form and asset sources at laptop and phone widths', { skip }, () => {
  let signedIn: SignedInBrowser;
  let gw: TestGateway;
  let page: Page;
  let projectId = '';
  let songTaskId = '';
  let pageErrors: string[] = [];

  const api = <T>(method: string, path: string, body?: unknown) => signedIn.api<T>(method, path, body);
  const shootBoth = (name: string) => signedIn.shootBoth(page, name);

  before(async () => {
    signedIn = await openSignedInBrowser({ name: 'music-assets', creditCents: 1000, creditNote: 'music e2e' });
    ({ gw, page, pageErrors } = signedIn);
  });

  after(async () => {
    await signedIn?.close();
  });

  test('Suno: required fields are marked per mode and action; Generate names the missing ones and sends nothing', async () => {
    await page.goto(`${gw.url}/playground?model=suno`);
    await page.getByLabel(/^Description/).waitFor();
    assert.match((await page.locator('label[for="param-gptDescriptionPrompt"]').textContent()) ?? '', /Description \(required\)/);
    await page.getByLabel('Custom', { exact: true }).check();
    await page.getByLabel(/^Tags/).waitFor();
    assert.match((await page.locator('label[for="param-tags"]').textContent()) ?? '', /\(required\)/);
    assert.match((await page.locator('label[for="param-prompt"]').textContent()) ?? '', /\(required\)/);
    assert.doesNotMatch((await page.locator('label[for="param-title"]').textContent()) ?? '', /required/, 'an optional field is not marked');

    await page.getByLabel(/^Tags/).fill('synthwave');
    await page.getByRole('button', { name: 'Generate' }).click();
    const missing = page.getByTestId('missing-fields');
    await missing.waitFor();
    assert.equal(await missing.textContent(), 'Fill in the required field first: Prompt.');
    assert.equal(await page.getByTestId('task-status').count(), 0, 'nothing was created');
    await assertAccessibleBasics(page, 'Suno form with a missing field');
    await shootBoth('suno-blocked');

    await page.getByLabel('Make instrumental', { exact: true }).check();
    await missing.waitFor({ state: 'detached' });
    assert.doesNotMatch((await page.locator('label[for="param-prompt"]').textContent()) ?? '', /required/, 'an instrumental needs no lyrics');

    await page.getByLabel(/^Action/).selectOption('extend');
    await page.getByLabel(/^Continue at/).waitFor();
    assert.match((await page.locator('label[for="param-continueAt"]').textContent()) ?? '', /\(required\)/);
    assert.match((await page.locator('label[for="param-sourceTaskId"]').textContent()) ?? '', /required: this or Audio URL/);
    await page.getByRole('button', { name: 'Generate' }).click();
    assert.match((await missing.textContent()) ?? '', /Source task ID or Audio URL, Continue at|Continue at, Source task ID or Audio URL/);
    await shootBoth('suno-extend-required');

    // A voice comes from a recording or from a clip of a track: one of the two, marked both ways.
    const mark = async (name: string) => (await page.locator(`label[for="param-${name}"]`).textContent()) ?? '';
    await page.getByLabel(/^Action/).selectOption('voice');
    await page.getByLabel(/^Voice audio URL/).waitFor();
    assert.match(await mark('voiceAudioUrl'), /\(required: this or Source task ID\)/);
    assert.match(await mark('sourceTaskId'), /\(required: this or Voice audio URL\)/);
    assert.match(await mark('name'), /\(required\)/);
    assert.doesNotMatch(await mark('startS'), /required/, 'the track\'s other fields wait until a track is chosen');
    await page.getByLabel(/^Name/).fill('Ava');
    await page.getByRole('button', { name: 'Generate' }).click();
    await missing.filter({ hasText: /^Fill in the required field first: Voice audio URL or Source task ID\.$/ }).waitFor();
    await shootBoth('suno-voice-either');
    await page.getByLabel(/^Vox audio ID/).fill('vox_1');
    assert.match(await mark('startS'), /\(required\)/);
    assert.match(await mark('sourceTaskId'), /\(required\)/);
    assert.doesNotMatch(await mark('voiceAudioUrl'), /required/, 'the recording is no longer asked for');
    await page.getByRole('button', { name: 'Generate' }).click();
    await missing.filter({ hasText: /^Fill in the required fields first: Source task ID, Start \(s\), End \(s\)\.$/ }).waitFor();
    assert.equal(await page.getByTestId('task-status').count(), 0, 'nothing was created');
    assert.deepEqual(pageErrors, []);
  });

  test('a song: each track card holds its title, duration, player and download; no separate list of players', async () => {
    await page.goto(`${gw.url}/playground?model=suno`);
    await page.getByLabel(/^Description/).fill('a short tune about tea');
    await page.getByRole('button', { name: 'Generate' }).click();
    await page.getByTestId('task-status').getByText('Finished').waitFor({ timeout: 60_000 });
    songTaskId = ((await page.locator('a.mono[href^="/generations/"]').first().textContent()) ?? '').trim();
    const cards = page.getByTestId('music-track');
    await cards.first().waitFor();
    const count = await cards.count();
    assert.ok(count >= 2, 'a song has two tracks');
    const status = await api<{ files: Array<{ fileUrl: string; fileType: string }> }>('GET', `/api/v1/task/status/${songTaskId}`);
    const audio = status.files.filter((f) => f.fileType === 'music').map((f) => f.fileUrl);
    for (let i = 0; i < count; i++) {
      const card = cards.nth(i);
      assert.equal(await card.locator('audio').getAttribute('src'), audio[i], `track ${i + 1} plays its own file`);
      assert.match((await card.getByTestId('track-duration').textContent()) ?? '', /^\d+:\d\d$/);
      assert.equal(await card.getByRole('link', { name: /^Download / }).getAttribute('href'), audio[i]);
    }
    assert.equal(await page.locator('.playground-result .file-list audio').count(), 0, 'no player outside the cards');
    await assertAccessibleBasics(page, 'a finished song');
    await shootBoth('song-cards');
    assert.deepEqual(pageErrors, []);
  });

  test('a project imports an artifact and a generation\'s file through the picker; an unknown source is not a plan problem', async () => {
    // An artifact: the local agent model makes a picture.
    const conversation = await api<{ conversationId: string }>('POST', '/api/v1/agent/conversations', {});
    await api('POST', `/api/v1/agent/conversations/${conversation.conversationId}/messages`, { content: [{ type: 'text', text: 'a product photo on white' }] });
    let artifactId = '';
    for (let i = 0; i < 300 && !artifactId; i++) {
      const recent = await api<Array<{ artifactId: string }>>('GET', '/api/v1/agent/artifacts?limit=5');
      artifactId = recent[0]?.artifactId ?? '';
      if (!artifactId) await page.waitForTimeout(100);
    }
    assert.ok(artifactId, 'the agent made an artifact');
    projectId = (await api<{ projectId: string }>('POST', '/api/v1/agent/projects', { name: 'Tea brand' })).projectId;

    // Without a plan, an unknown source reads as unknown, a real one as needing a plan.
    const unknown = await page.evaluate(async (id) => {
      const session = (await (await fetch('/api/v1/auth/session')).json()) as { data: { csrfToken: string } };
      const res = await fetch(`/api/v1/agent/projects/${id}/assets/import`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-csrf-token': session.data.csrfToken, 'idempotency-key': 'e2e-unknown' },
        body: JSON.stringify({ artifactId: 'art_nope', role: 'logo' }),
      });
      return { status: res.status, code: ((await res.json()) as { error?: { code: string } }).error?.code };
    }, projectId);
    assert.deepEqual(unknown, { status: 404, code: 'source_not_found' });

    await page.goto(`${gw.url}/projects/${projectId}`);
    await page.getByRole('heading', { level: 1, name: 'Tea brand' }).waitFor();
    const picker = page.locator('.asset-source-picker');
    await picker.getByText(artifactId).click();
    await page.getByLabel('Role').selectOption('logo');
    await page.getByRole('button', { name: 'Import into the project' }).click();
    await page.getByRole('alert').filter({ hasText: 'needs a storage plan' }).waitFor();

    const plans = await api<{ plans: Array<{ planId: string }> }>('GET', '/api/v1/agent/storage/plans');
    const quote = await api<{ quoteId: string; quotaVersion: number }>('POST', '/api/v1/agent/storage/quote', { planId: plans.plans[0]?.planId });
    await page.evaluate(async (q) => {
      const session = (await (await fetch('/api/v1/auth/session')).json()) as { data: { csrfToken: string } };
      const res = await fetch('/api/v1/agent/storage/subscribe', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-csrf-token': session.data.csrfToken, 'idempotency-key': `e2e-${q.quoteId}` },
        body: JSON.stringify({ quoteId: q.quoteId, quotaVersion: q.quotaVersion, autoRenew: true }),
      });
      if (res.status !== 200) throw new Error(`subscribe answered ${res.status}: ${await res.text()}`);
    }, quote);

    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Tea brand' }).waitFor();
    await picker.getByText(artifactId).click();
    await page.getByLabel('Role').selectOption('logo');
    await page.getByRole('button', { name: 'Import into the project' }).click();
    await page.getByText(/^Imported /).waitFor();

    const generations = page.getByTestId('recent-generations');
    await generations.getByRole('radio').first().waitFor();
    await generations.getByLabel(/ file 2 \(audio\)$/).first().check();
    await page.getByLabel('Role').selectOption('reference');
    await page.getByRole('button', { name: 'Import into the project' }).click();
    await page.getByText(/^Imported task_.*-1\./).waitFor();

    // A file from disk: uploaded through the playground uploads API, then chosen and imported.
    const { default: sharp } = await import('sharp');
    const picture = await sharp({ create: { width: 64, height: 64, channels: 3, background: { r: 20, g: 160, b: 90 } } }).png().toBuffer();
    await page.getByLabel('Upload a file for the project').setInputFiles({ name: 'mark.png', mimeType: 'image/png', buffer: picture });
    await picker.getByRole('radio', { name: /^Uploaded file att_/ }).waitFor();
    assert.ok(await picker.getByRole('radio', { name: /^Uploaded file att_/ }).isChecked(), 'the upload is chosen');
    await page.getByLabel('Role').selectOption('other');
    await page.getByRole('button', { name: 'Import into the project' }).click();
    await page.getByText(/^Imported att_/).waitFor();

    const assets = await api<{ items: Array<{ assetId: string; role: string; sourceArtifactId: string | null; sizeBytes: number }> }>('GET', `/api/v1/agent/projects/${projectId}/assets`);
    assert.deepEqual(assets.items.map((a) => [a.role, a.sourceArtifactId]).sort(), [
      ['logo', artifactId],
      ['other', null],
      ['reference', null],
    ]);
    assert.equal(assets.items.find((a) => a.role === 'other')?.sizeBytes, picture.length, 'the copy is the file from disk');
    const files = await api<{ items: Array<{ source: { type: string; id: string; outputIndex: number | null } }> }>('GET', '/api/v1/agent/storage/files');
    assert.ok(files.items.some((f) => f.source.type === 'generation' && f.source.id === songTaskId && f.source.outputIndex === 1), 'the song\'s second file was copied');
    await assertAccessibleBasics(page, 'project with imported assets');
    await shootBoth('project-picker');
    assert.deepEqual(pageErrors, []);
  });

  test('Storage on a phone, upright and sideways: a long file name wraps inside the page; Delete and its confirm stay in view', async () => {
    const assets = await api<{ items: Array<{ assetId: string; role: string; name: string }> }>('GET', `/api/v1/agent/projects/${projectId}/assets`);
    const other = assets.items.find((a) => a.role === 'other');
    assert.ok(other);
    // Names are made from ids today; one unbroken 120-character name is the worst a name can be.
    const longName = `${'brand-mark-final-approved-'.repeat(4)}${'x'.repeat(16)}.png`;
    const { db } = gw.gateway.services.database;
    await db.updateTable('storage_files').set({ name: longName }).where('id', '=', other.assetId).execute();
    await db.updateTable('agent_project_assets').set({ name: longName }).where('id', '=', other.assetId).execute();
    await page.goto(`${gw.url}/storage`);
    await page.getByRole('heading', { level: 1, name: 'Storage' }).waitFor();
    const row = page.getByRole('row', { name: new RegExp(longName.slice(0, 40)) });
    await row.waitFor();
    for (const [viewport, label] of [[PHONE, 'Delete'], [PHONE_LANDSCAPE, 'Delete'], [WIDE, 'Delete'], [PHONE, 'Confirm delete'], [PHONE_LANDSCAPE, 'Confirm delete']] as const) {
      await page.setViewportSize(viewport);
      if (label === 'Confirm delete' && (await row.getByRole('button', { name: /^Confirm delete/ }).count()) === 0) await row.getByRole('button', { name: /^Delete/ }).click();
      const fit = await row.evaluate((tr, [name, label]) => {
        const link = [...tr.querySelectorAll('a')].find((a) => a.textContent === name) as HTMLElement;
        const scroller = tr.closest('.table-scroll') as HTMLElement;
        const button = [...tr.querySelectorAll('button')].find((b) => b.textContent?.trim() === label) as HTMLElement;
        const box = button.getBoundingClientRect();
        return {
          nameShown: link.scrollWidth <= link.clientWidth + 1 || link.title === name,
          nameRight: Math.round(link.getBoundingClientRect().right),
          tableOverflow: scroller.scrollWidth - scroller.clientWidth,
          buttonRight: Math.round(box.right),
          buttonWidth: Math.round(box.width),
          width: window.innerWidth,
        };
      }, [longName, label] as const);
      const where = `${viewport.width} px, ${label}`;
      assert.ok(fit.nameShown, `${where}: the whole name is readable (wrapped, or in its title)`);
      assert.ok(fit.nameRight <= fit.width, `${where}: the name ends inside the page (${fit.nameRight} > ${fit.width})`);
      assert.ok(fit.tableOverflow <= 0, `${where}: the Files table does not scroll sideways (${fit.tableOverflow} px)`);
      assert.ok(fit.buttonWidth > 0 && fit.buttonRight <= fit.width, `${where}: the button is in view (right edge ${fit.buttonRight} of ${fit.width})`);
    }
    await row.getByRole('button', { name: 'Cancel' }).click();
    await shootBoth('storage-long-name');
  });

  test('Storage: deleting the file a project uses as its logo warns first, naming the project', async () => {
    const assets = await api<{ items: Array<{ assetId: string; role: string; name: string }> }>('GET', `/api/v1/agent/projects/${projectId}/assets`);
    const logo = assets.items.find((a) => a.role === 'logo');
    const other = assets.items.find((a) => a.role !== 'logo');
    assert.ok(logo && other);
    const project = await api<{ version: number }>('GET', `/api/v1/agent/projects/${projectId}`);
    await api('PATCH', `/api/v1/agent/projects/${projectId}`, { expectedVersion: project.version, brand: { logoAssetId: logo.assetId } });

    await page.goto(`${gw.url}/storage`);
    await page.getByRole('heading', { level: 1, name: 'Storage' }).waitFor();
    await page.getByRole('button', { name: `Delete ${other.name}` }).click();
    await page.getByRole('button', { name: `Confirm delete ${other.name}` }).waitFor();
    assert.equal(await page.getByTestId('logo-warning').count(), 0, 'a file that is no logo has no warning');
    await page.getByRole('button', { name: 'Cancel' }).click();

    await page.getByRole('button', { name: `Delete ${logo.name}` }).click();
    const warning = page.getByTestId('logo-warning');
    await warning.waitFor();
    assert.match((await warning.textContent()) ?? '', /logo of the project Tea brand/);
    assert.equal(await warning.getByRole('link', { name: 'Tea brand' }).getAttribute('href'), `/projects/${projectId}`);
    await assertAccessibleBasics(page, 'storage with the logo warning');
    await shootBoth('logo-warning');
    await page.getByRole('button', { name: `Confirm delete ${logo.name}` }).click();
    await page.getByRole('button', { name: `Delete ${logo.name}` }).waitFor({ state: 'detached' });
    assert.deepEqual(pageErrors, []);
  });

  test('the project page says its logo was deleted and takes another; nothing is changed behind the user\'s back', async () => {
    const before = await api<{ version: number; brand: { logoAssetId: string | null } }>('GET', `/api/v1/agent/projects/${projectId}`);
    const assets = await api<{ items: Array<{ assetId: string; name: string; role: string }> }>('GET', `/api/v1/agent/projects/${projectId}/assets`);
    assert.ok(before.brand.logoAssetId && !assets.items.some((a) => a.assetId === before.brand.logoAssetId), 'the deleted logo is still named (docs/decisions.md)');
    await page.goto(`${gw.url}/projects/${projectId}`);
    await page.getByRole('heading', { level: 1, name: 'Tea brand' }).waitFor();
    const logoField = page.getByLabel('Logo', { exact: true });
    await page.getByRole('alert').filter({ hasText: /^Logo deleted: / }).waitFor();
    assert.equal(await logoField.getAttribute('aria-invalid'), 'true');
    assert.equal(await logoField.locator('option:checked').textContent(), 'Logo deleted');
    await assertAccessibleBasics(page, 'project with a deleted logo');
    await shootBoth('project-logo-deleted');

    const replacement = assets.items.find((a) => a.role === 'other');
    assert.ok(replacement);
    await logoField.selectOption(replacement.assetId);
    await page.getByRole('alert').filter({ hasText: /^Logo deleted: / }).waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Save a new version' }).click();
    await page.getByText(`Saved as version ${before.version + 1}.`).waitFor();
    const after = await api<{ version: number; brand: { logoAssetId: string | null } }>('GET', `/api/v1/agent/projects/${projectId}`);
    assert.equal(after.brand.logoAssetId, replacement.assetId);
    assert.equal(await page.getByText(/^Logo deleted/).count(), 0);
    assert.deepEqual(pageErrors, []);
  });
});
