/**
 * kie against its published bodies (issue 18, items 2–4): the strict fake checks every body against
 * the documents under test/fixtures/upstreams/kie/, so a misnamed field, a missing required one or an
 * undocumented value fails here as it would at kie.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { kieJobRequest } from '../../../src/providers/media/kie/kie-jobs.mapping.ts';
import type { MediaJob, MediaProvider } from '../../../src/providers/media/media-provider.ts';
import { createMediaProvider } from '../../../src/providers/media/registry.ts';
import { documentedProblem, type KieFake, startKieFake } from '../../fakes/media/kie.fake.ts';
import { CallbackReceiver, makeJob, pollUntilDone } from './helpers.ts';

let fake: KieFake;
let legacy: KieFake;
let rx: CallbackReceiver;
const providers: MediaProvider[] = [];

function kie(target: KieFake = fake): MediaProvider {
  const p = createMediaProvider('kie-main', { type: 'kie', baseUrl: target.url, apiKey: target.apiKey, timeoutMs: 2_000, concurrency: 4, options: { pollIntervalMs: 10, retryPollMs: 25 } });
  providers.push(p);
  return p;
}

function job(model: string, input: Record<string, unknown>): MediaJob {
  const made = makeJob(model, input);
  return { ...made, callbackUrl: rx.urlFor(made.attemptId) };
}

before(async () => {
  [fake, legacy, rx] = await Promise.all([startKieFake(), startKieFake({ veoInlineResolution: false }), new CallbackReceiver().listen()]);
});

after(async () => {
  await Promise.all([...providers.map((p) => p.close?.()), fake.close(), legacy.close(), rx.close()]);
});

describe('the strict kie fake refuses what kie documents it refuses', () => {
  const veo = { prompt: 'p', model: 'veo3_fast', aspect_ratio: '9:16', callBackUrl: 'https://cb.example/x' };
  test('a misspelt field, a missing required field and a value outside an enum', () => {
    assert.equal(documentedProblem('POST /api/v1/veo/generate', veo), undefined);
    assert.equal(documentedProblem('POST /api/v1/veo/generate', { ...veo, aspect_ratio: undefined, aspectRatio: '9:16' }), 'aspectRatio is not a parameter of this endpoint');
    assert.equal(documentedProblem('POST /api/v1/veo/generate', { model: 'veo3', callBackUrl: 'x' }), 'prompt is required');
    assert.match(documentedProblem('POST /api/v1/veo/generate', { ...veo, aspect_ratio: '1:1' }) ?? '', /aspect_ratio must be one of/);
    assert.match(documentedProblem('POST /api/v1/jobs/createTask', { model: 'no-such-model', input: {} }) ?? '', /not supported/);
  });

  test('the refusal is kie-shaped: HTTP 200 with code 422 and msg, and no task is created', async () => {
    const res = await fetch(`${fake.url}/api/v1/veo/generate`, {
      method: 'POST',
      headers: { authorization: `Bearer ${fake.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ ...veo, aspectRatio: '9:16' }),
    });
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { code: 422, msg: 'aspectRatio is not a parameter of this endpoint' });
  });
});

describe('item 2: kie Veo', () => {
  test('a 9:16 request is sent as aspect_ratio (kie’s current page) and accepted', async () => {
    const p = kie();
    const j = job('veo-3.1-fast', { prompt: 'a tall tower', aspectRatio: '9:16', resolution: '720p' });
    const submitted = await p.submit(j);
    assert.equal(submitted.kind, 'accepted', JSON.stringify(submitted));
    assert.equal(fake.lastJson('POST', '/api/v1/veo/generate').aspect_ratio, '9:16');
  });

  test('1080p is delivered through kie’s 1080p call when the record comes back at 720p', async () => {
    const p = kie(legacy);
    const j = job('veo-3.1-lite', { prompt: 'a lighthouse', resolution: '1080p' });
    const submitted = await p.submit(j);
    assert.ok(submitted.kind === 'accepted', JSON.stringify(submitted));
    const { outcome } = await pollUntilDone(p, j, submitted.upstreamId);
    assert.ok(outcome.kind === 'completed', JSON.stringify(outcome));
    assert.deepEqual(outcome.result.files.map((f) => f.url), [`${legacy.url}/files/${submitted.upstreamId}/1080p-0.mp4`]);
    assert.ok(legacy.requestsTo('GET', '/api/v1/veo/get-1080p-video').length >= 2, 'polled until the 1080p file was ready');
  });

  test('4k is delivered through kie’s 4K call, started once and polled until ready', async () => {
    const p = kie(legacy);
    const j = job('veo-3.1-quality', { prompt: 'a glacier', resolution: '4k' });
    const submitted = await p.submit(j);
    assert.ok(submitted.kind === 'accepted', JSON.stringify(submitted));
    const { outcome } = await pollUntilDone(p, j, submitted.upstreamId);
    assert.ok(outcome.kind === 'completed', JSON.stringify(outcome));
    assert.deepEqual(outcome.result.files.map((f) => f.url), [`${legacy.url}/files/${submitted.upstreamId}/4k-0.mp4`]);
    const posts = legacy.requestsTo('POST', '/api/v1/veo/get-4k-video');
    assert.ok(posts.length >= 2);
    assert.deepEqual(posts[0]?.json, { taskId: submitted.upstreamId, index: 0, callBackUrl: j.callbackUrl });
  });

  test('a record already at the asked resolution completes without an upgrade call', async () => {
    const p = kie();
    const before = fake.requestsTo('GET', '/api/v1/veo/get-1080p-video').length;
    const j = job('veo-3.1-fast', { prompt: 'a river', resolution: '1080p' });
    const submitted = await p.submit(j);
    assert.ok(submitted.kind === 'accepted');
    const { outcome } = await pollUntilDone(p, j, submitted.upstreamId);
    assert.ok(outcome.kind === 'completed');
    assert.equal(fake.requestsTo('GET', '/api/v1/veo/get-1080p-video').length, before);
  });

  test('REFERENCE_2_VIDEO is sent for veo3_fast and refused before dispatch for veo3 (quality)', async () => {
    const urls = ['https://m.example/r1.png', 'https://m.example/r2.png'];
    const fast = await kie().submit(job('veo-3.1-fast', { prompt: 'refs', urls, generationType: 'reference' }));
    assert.equal(fast.kind, 'accepted', JSON.stringify(fast));
    assert.equal(fake.lastJson('POST', '/api/v1/veo/generate').generationType, 'REFERENCE_2_VIDEO');
    const sent = fake.requestsTo('POST', '/api/v1/veo/generate').length;
    const quality = await kie().submit(job('veo-3.1-quality', { prompt: 'refs', urls, generationType: 'reference' }));
    assert.ok(quality.kind === 'failed');
    assert.equal(quality.error.code, 'unsupported');
    assert.equal(quality.error.retryable, true, 'another route may serve it');
    assert.equal(fake.requestsTo('POST', '/api/v1/veo/generate').length, sent, 'nothing was sent');
  });
});

describe('item 3: kie Suno add-instrumental and add-vocals', () => {
  const audioUrl = 'https://m.example/song.mp3';
  test('the required title and negativeTags are sent; kie accepts the body', async () => {
    const p = kie();
    const instrumental = await p.submit(job('suno', { action: 'add-instrumental', audioUrl, tags: 'piano, calm', negativeTags: 'metal', mv: 'v5.0' }));
    assert.equal(instrumental.kind, 'accepted', JSON.stringify(instrumental));
    assert.deepEqual(fake.lastJson('POST', '/api/v1/generate/add-instrumental').title, 'Untitled');
    const vocals = await p.submit(job('suno', { action: 'add-vocals', audioUrl, prompt: 'la la', tags: 'jazz', negativeTags: 'metal', mv: 'v5.5' }));
    assert.equal(vocals.kind, 'accepted', JSON.stringify(vocals));
  });

  test('an engine kie’s page does not list, or a missing negativeTags, is refused before dispatch', () => {
    const p = kie();
    assert.deepEqual(p.refusal?.(job('suno', { action: 'add-instrumental', audioUrl, tags: 'piano', negativeTags: 'metal', mv: 'v4.5' }))?.field, 'mv');
    assert.deepEqual(p.refusal?.(job('suno', { action: 'add-vocals', audioUrl, prompt: 'la', tags: 'jazz', mv: 'v5.0' }))?.field, 'negativeTags');
    assert.equal(p.refusal?.(job('suno', { action: 'add-vocals', audioUrl, prompt: 'la', tags: 'jazz', negativeTags: 'x', mv: 'v4.5+' })), undefined);
  });
});

describe('item 4: kie Seedream', () => {
  test('seedream-4.0 sends the image_size preset and image_resolution, and kie accepts it', async () => {
    const j = job('seedream-4.0', { prompt: 'a poster', size: '16:9', resolution: '4K' });
    assert.deepEqual(kieJobRequest(j), {
      model: 'bytedance/seedream-v4-text-to-image',
      input: { prompt: 'a poster', image_size: 'landscape_16_9', image_resolution: '4K' },
    });
    const submitted = await kie().submit(j);
    assert.equal(submitted.kind, 'accepted', JSON.stringify(submitted));
  });

  test('seedream-4.5 sends aspect_ratio and quality only (no image_resolution), and kie accepts it', async () => {
    const j = job('seedream-4.5', { prompt: 'a poster', size: '3:4', resolution: '4K' });
    assert.deepEqual(kieJobRequest(j), { model: 'seedream/4.5-text-to-image', input: { prompt: 'a poster', aspect_ratio: '3:4', quality: 'high' } });
    const submitted = await kie().submit(j);
    assert.equal(submitted.kind, 'accepted', JSON.stringify(submitted));
  });

  test('sizes and resolutions kie does not document for the model are refused before dispatch', () => {
    const p = kie();
    assert.equal(p.refusal?.(job('seedream-4.0', { prompt: 'p', size: '9:21' }))?.field, 'size');
    assert.equal(p.refusal?.(job('seedream-4.0', { prompt: 'p', resolution: '3K' }))?.field, 'resolution');
    assert.equal(p.refusal?.(job('seedream-4.5', { prompt: 'p', resolution: '1K' }))?.field, 'resolution');
    assert.equal(p.refusal?.(job('seedream-4.5', { prompt: 'p', watermark: true }))?.field, 'watermark');
    assert.equal(p.refusal?.(job('seedream-4.0', { prompt: 'p', size: '21:9', resolution: '2K' })), undefined);
  });
});
