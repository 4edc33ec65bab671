/**
 * kie against its published bodies (issue 18, items 2–4): the strict fake checks every body against
 * the documents under test/fixtures/upstreams/kie/, so a misnamed field, a missing required one or an
 * undocumented value fails here as it would at kie.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { kieJobRequest } from '../../../src/providers/media/kie/kie-jobs.mapping.ts';
import type { MediaJob, MediaProvider } from '../../../src/providers/media/media-provider.ts';
import { createMediaProvider } from '../../../src/providers/registries/media.registry.ts';
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
    // Issue 30, item 12: the paid 4K POST is sent once; the upgrade's record is polled after it.
    const posts = legacy.requestsTo('POST', '/api/v1/veo/get-4k-video').filter((r) => (r.json as { taskId?: string } | undefined)?.taskId === submitted.upstreamId);
    assert.equal(posts.length, 1);
    assert.deepEqual(posts[0]?.json, { taskId: submitted.upstreamId, index: 0, callBackUrl: j.callbackUrl });
    assert.equal(legacy.jobs.get(submitted.upstreamId)?.meta.fourKPosts, 1);
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

describe('issue 30, item 9: kie GPT Image follows kie’s pages per model and mode', () => {
  const sizes = ['auto', '1:1', '16:9', '9:16', '4:3', '3:4', '3:2', '2:3', '5:4', '4:5', '2:1', '1:2', '3:1', '1:3', '21:9', '9:21'];
  const img = 'https://m.example/a.png';

  test('every size × resolution, text and edit: refused before dispatch exactly when kie’s page refuses the body we would send', () => {
    const p = kie();
    for (const model of ['gpt-image-2', 'gpt-image-1.5']) {
      for (const urls of [undefined, [img]]) {
        for (const size of sizes) {
          for (const resolution of ['1k', '2k', '4k']) {
            const input = { prompt: 'p', size, resolution, ...(urls ? { urls } : {}) };
            const j = job(model, input);
            const refusal = p.refusal?.(j);
            const body = kieJobRequest(j);
            const problem = documentedProblem('POST /api/v1/jobs/createTask', { ...body, callBackUrl: j.callbackUrl });
            const label = `${model} ${JSON.stringify(input)} → ${JSON.stringify(body)}`;
            if (refusal) assert.match(refusal.field, /^(size|resolution)$/u, label);
            // What we send, kie accepts; what we refuse is a size or tier kie's page does not make.
            else assert.equal(problem, undefined, label);
          }
        }
      }
    }
  });

  test('gpt-image/1.5 gets aspect_ratio and quality medium, no resolution; 2k, 4k and other shapes are refused', () => {
    const p = kie();
    assert.deepEqual(kieJobRequest(job('gpt-image-1.5', { prompt: 'p', size: 'auto', urls: [img] })), {
      model: 'gpt-image/1.5-image-to-image',
      input: { prompt: 'p', input_urls: [img], aspect_ratio: '1:1', quality: 'medium' },
    });
    assert.equal(p.refusal?.(job('gpt-image-1.5', { prompt: 'p', resolution: '2k' }))?.field, 'resolution');
    assert.equal(p.refusal?.(job('gpt-image-1.5', { prompt: 'p', resolution: '4k', size: '3:2' }))?.field, 'resolution');
    assert.equal(p.refusal?.(job('gpt-image-1.5', { prompt: 'p', size: '16:9' }))?.field, 'size');
  });

  test('gpt-image-2 gets aspect_ratio and resolution, no quality; 2K/4K refuse 5:4, 4:5, 3:1, 1:3, 9:21 (text) and 1:1 4K, auto 2K (edit)', () => {
    const p = kie();
    assert.deepEqual(kieJobRequest(job('gpt-image-2', { prompt: 'p', size: '1:3', resolution: '1k' })), {
      model: 'gpt-image-2-text-to-image',
      input: { prompt: 'p', aspect_ratio: '1:3', resolution: '1K' },
    });
    for (const size of ['5:4', '4:5', '3:1', '1:3', '9:21']) assert.equal(p.refusal?.(job('gpt-image-2', { prompt: 'p', size, resolution: '2k' }))?.field, 'resolution');
    assert.equal(p.refusal?.(job('gpt-image-2', { prompt: 'p', size: '1:1', resolution: '4k' })), undefined);
    assert.equal(p.refusal?.(job('gpt-image-2', { prompt: 'p', size: '1:1', resolution: '4k', urls: [img] }))?.field, 'resolution');
    assert.equal(p.refusal?.(job('gpt-image-2', { prompt: 'p', size: 'auto', resolution: '2k', urls: [img] }))?.field, 'resolution');
  });

  test('the strict fake refuses what kie’s GPT Image pages refuse', () => {
    const t2i = (input: Record<string, unknown>) => documentedProblem('POST /api/v1/jobs/createTask', { model: 'gpt-image-2-text-to-image', input });
    assert.equal(t2i({ prompt: 'p', aspect_ratio: '3:1', resolution: '1K' }), undefined);
    assert.match(t2i({ prompt: 'p', aspect_ratio: '3:1', resolution: '2K' }) ?? '', /2K does not support/);
    assert.match(t2i({ prompt: 'p', quality: 'high' }) ?? '', /quality is not a parameter/);
    const v15 = (input: Record<string, unknown>) => documentedProblem('POST /api/v1/jobs/createTask', { model: 'gpt-image/1.5-text-to-image', input });
    assert.match(v15({ prompt: 'p', aspect_ratio: '1:1', quality: 'medium', resolution: '2K' }) ?? '', /resolution is not a parameter/);
    assert.match(v15({ prompt: 'p', aspect_ratio: '16:9', quality: 'medium' }) ?? '', /aspect_ratio must be one of/);
    assert.match(v15({ prompt: 'p', aspect_ratio: '1:1' }) ?? '', /quality is required/);
  });
});

describe('issue 30, item 12: what kie would make short or not at all is refused before the charge', () => {
  test('nano-banana-2 at 512px is refused (kie has 1K, 2K, 4K); nano-banana-pro 512px is sent as 1K (priced as 1K)', () => {
    const p = kie();
    assert.equal(p.refusal?.(job('nano-banana-2', { prompt: 'p', resolution: '512px' }))?.field, 'resolution');
    assert.equal(p.refusal?.(job('nano-banana-2', { prompt: 'p', resolution: '1K' })), undefined);
    assert.equal(p.refusal?.(job('nano-banana-pro', { prompt: 'p', resolution: '512px' })), undefined);
    assert.equal(kieJobRequest(job('nano-banana-pro', { prompt: 'p', resolution: '512px' })).input.resolution, '1K');
  });

  test('Suno v3.5 is refused on kie (its pages list V4 to V5_5); the strict fake refuses model V3_5', async () => {
    const p = kie();
    assert.equal(p.refusal?.(job('suno', { gptDescriptionPrompt: 'a calm song', mv: 'v3.5' }))?.field, 'mv');
    assert.equal(p.refusal?.(job('suno', { gptDescriptionPrompt: 'a calm song', mv: 'v4.0' })), undefined);
    const res = await fetch(`${fake.url}/api/v1/generate`, {
      method: 'POST',
      headers: { authorization: `Bearer ${fake.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ customMode: false, instrumental: false, prompt: 'a calm song', model: 'V3_5', callBackUrl: 'https://cb.example/x' }),
    });
    assert.match(((await res.json()) as { msg: string }).msg, /model must be one of/);
  });
});
