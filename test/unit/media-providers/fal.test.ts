import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { falRequest } from '../../../src/providers/media/fal/fal.mapping.ts';
import type { MediaJob, MediaProvider } from '../../../src/providers/media/media-provider.ts';
import { createMediaProvider } from '../../../src/providers/registries/media.registry.ts';
import { type FalFake, startFalFake } from '../../fakes/media/fal.fake.ts';
import { CallbackReceiver, download, isMp4, makeJob, PNG_MAGIC, pollUntilDone, sleep } from './helpers.ts';

let fake: FalFake;
let rx: CallbackReceiver;
const providers: MediaProvider[] = [];

function fal(options: Record<string, unknown> = {}, timeoutMs = 2_000, apiKey = fake.apiKey): MediaProvider {
  const p = createMediaProvider('fal-main', { type: 'fal', baseUrl: fake.url, apiKey, timeoutMs, concurrency: 4, options: { pollIntervalMs: 10, retryPollMs: 25, ...options } });
  providers.push(p);
  return p;
}

function job(model: string, input: Record<string, unknown>, upstreamModel: string, overrides: Partial<MediaJob> = {}): MediaJob {
  const made = makeJob(model, input, { upstreamModel, ...overrides });
  return { ...made, callbackUrl: rx.urlFor(made.attemptId) };
}

before(async () => {
  [fake, rx] = await Promise.all([startFalFake(), new CallbackReceiver().listen()]);
});

after(async () => {
  await Promise.all([...providers.map((p) => p.close?.()), fake.close(), rx.close()]);
});

describe('fal queue', () => {
  test('submit with the webhook in the query, poll the app status, read the result', async () => {
    const p = fal();
    const j = job('z-image-turbo', { prompt: 'a lamp', size: '16:9' }, 'fal-ai/z-image/turbo');
    const submitted = await p.submit(j);
    assert.ok(submitted.kind === 'accepted');
    const sent = fake.requestsTo('POST', '/fal-ai/z-image/turbo').at(-1);
    assert.equal(sent?.headers.authorization, 'Key fal-test-key');
    assert.equal(sent?.query.fal_webhook, j.callbackUrl);
    assert.deepEqual(sent?.json, { prompt: 'a lamp', image_size: 'landscape_16_9', num_images: 1 });
    const { outcome } = await pollUntilDone(p, j, submitted.upstreamId);
    assert.deepEqual(outcome, {
      kind: 'completed',
      result: { files: [{ fileType: 'image', url: `${fake.url}/files/${submitted.upstreamId}/0.png`, contentType: 'image/png' }], output: null },
    });
    assert.ok(fake.requestsTo('GET', `/fal-ai/z-image/requests/${submitted.upstreamId}/status`).length >= 1);
    assert.equal(fake.requestsTo('GET', `/fal-ai/z-image/requests/${submitted.upstreamId}`).filter((r) => !r.path.endsWith('/status')).length, 1);
    const file = await download(outcome.kind === 'completed' ? (outcome.result.files[0]?.url ?? '') : '');
    assert.ok(file.body.subarray(0, 4).equals(PNG_MAGIC));
  });

  test('frames select the Veo endpoint and the result is a real MP4', async () => {
    const p = fal();
    const j = job('veo-3.1-fast', { prompt: 'waves', urls: ['https://m.example/1.png', 'https://m.example/2.png'] }, 'fal-ai/veo3.1');
    const submitted = await p.submit(j);
    assert.ok(submitted.kind === 'accepted');
    const sent = fake.requestsTo('POST', '/fal-ai/veo3.1/first-last-frame-to-video').at(-1);
    assert.deepEqual(sent?.json, {
      prompt: 'waves',
      aspect_ratio: '16:9',
      resolution: '1080p',
      duration: '8s',
      generate_audio: true,
      first_frame_url: 'https://m.example/1.png',
      last_frame_url: 'https://m.example/2.png',
    });
    const { outcome } = await pollUntilDone(p, j, submitted.upstreamId);
    assert.ok(outcome.kind === 'completed');
    assert.equal(outcome.result.files[0]?.fileType, 'video');
    assert.equal(outcome.result.files[0]?.contentType, 'video/mp4');
    assert.ok(isMp4((await download(outcome.result.files[0]?.url ?? '')).body));
  });

  test('endpoint selection per family', () => {
    assert.equal(falRequest(makeJob('nano-banana-pro', { prompt: 'p', urls: ['https://m.example/a.png'] }, { upstreamModel: 'fal-ai/nano-banana-pro' })).endpoint, 'fal-ai/nano-banana-pro/edit');
    assert.equal(falRequest(makeJob('qwen-image', { prompt: 'p' }, { upstreamModel: 'fal-ai/qwen-image' })).endpoint, 'fal-ai/qwen-image');
    const seedance = falRequest(makeJob('seedance-2.0', { prompt: 'p', imageUrls: ['https://m.example/a.png'] }, { upstreamModel: 'bytedance/seedance-2.0' }));
    assert.equal(seedance.endpoint, 'bytedance/seedance-2.0/reference-to-video');
    assert.equal(seedance.app, 'bytedance/seedance-2.0');
    assert.deepEqual(seedance.input.reference_image_urls, ['https://m.example/a.png']);
    const pro = falRequest(makeJob('seedance-1.5-pro', { prompt: 'p', imageUrls: ['https://m.example/a.png'], cameraFixed: true }, { upstreamModel: 'bytedance/seedance-v1.5-pro' }));
    assert.deepEqual(pro, {
      endpoint: 'bytedance/seedance-v1.5-pro/image-to-video',
      app: 'bytedance/seedance-v1.5-pro',
      input: { prompt: 'p', duration: '4', aspect_ratio: '16:9', resolution: '480p', generate_audio: true, image_url: 'https://m.example/a.png', camera_fixed: true },
    });
    const verbatim = falRequest(makeJob('veo-3.1-fast', { prompt: 'p' }, { upstreamModel: 'fal-ai/veo3.1/fast' }));
    assert.deepEqual([verbatim.endpoint, verbatim.app], ['fal-ai/veo3.1/fast', 'fal-ai/veo3.1']);
  });
});

describe('fal errors', () => {
  test('422 validation detail is not retryable and names the field', async () => {
    const p = fal();
    // fal's own validation answer (its webhooks page), for a request the strict fake would accept.
    fake.script({ failOnSubmit: { status: 422, body: { detail: [{ loc: ['body', 'model_name'], msg: 'field required', type: 'value_error.missing' }] } } });
    const outcome = await p.submit(job('kling-2.6-motion-control', { imageUrls: ['https://m.example/a.png'], videoUrls: ['https://m.example/a.mp4'], characterOrientation: 'image' }, 'fal-ai/kling-video/v2.6/standard/motion-control'));
    assert.deepEqual(outcome, { kind: 'failed', error: { message: 'fal submit: 422 body.model_name: field required', retryable: false, status: 422, code: 'invalid_request' } });
  });

  test('a wrong key is auth (retryable elsewhere); 503 and 429 are retryable', async () => {
    const bad = await fal({}, 2_000, 'wrong-key').submit(job('z-image-turbo', { prompt: 'p' }, 'fal-ai/z-image/turbo'));
    assert.deepEqual(bad, { kind: 'failed', error: { message: 'fal submit: 401 Unauthorized', retryable: true, status: 401, code: 'auth' } });
    fake.script({ failOnSubmit: { status: 503, body: { detail: 'No runner available', error_type: 'runner_scheduling_failure' } } });
    const busy = await fal().submit(job('z-image-turbo', { prompt: 'p' }, 'fal-ai/z-image/turbo'));
    assert.ok(busy.kind === 'failed');
    assert.deepEqual([busy.error.retryable, busy.error.code, busy.error.status], [true, 'unavailable', 503]);
    fake.script({ failOnSubmit: { status: 429, body: { detail: 'Rate limit exceeded' } } });
    const limited = await fal().submit(job('z-image-turbo', { prompt: 'p' }, 'fal-ai/z-image/turbo'));
    assert.ok(limited.kind === 'failed');
    assert.deepEqual([limited.error.retryable, limited.error.code], [true, 'rate_limited']);
  });

  test('a request that fails after acceptance: generation failure, or content policy', async () => {
    const p = fal();
    fake.script({ acceptThenFail: { message: 'CUDA out of memory' }, completeAfterMs: 10 });
    const a = job('z-image-turbo', { prompt: 'p' }, 'fal-ai/z-image/turbo');
    const sa = await p.submit(a);
    assert.ok(sa.kind === 'accepted');
    assert.deepEqual((await pollUntilDone(p, a, sa.upstreamId)).outcome, {
      kind: 'failed',
      error: { message: 'fal: CUDA out of memory (runner_server_error)', retryable: true, code: 'generation_failed' },
    });
    fake.script({ acceptThenFail: { message: 'flagged', code: 'content_policy_violation' }, completeAfterMs: 10 });
    const b = job('z-image-turbo', { prompt: 'p' }, 'fal-ai/z-image/turbo');
    const sb = await p.submit(b);
    assert.ok(sb.kind === 'accepted');
    assert.deepEqual((await pollUntilDone(p, b, sb.upstreamId)).outcome, {
      kind: 'failed',
      error: { message: 'fal: flagged (content_policy_violation)', retryable: false, code: 'content_policy' },
    });
  });
});

describe('fal cancel, unknown outcomes and webhooks', () => {
  test('cancel asks fal to stop; the request then reads as cancelled', async () => {
    const p = fal();
    fake.script({ completeAfterMs: 5_000 });
    const j = job('z-image-turbo', { prompt: 'slow' }, 'fal-ai/z-image/turbo');
    const submitted = await p.submit(j);
    assert.ok(submitted.kind === 'accepted');
    assert.deepEqual(await p.cancel?.(j, submitted.upstreamId), { kind: 'cancelled' }, 'IN_QUEUE: removed, never processed');
    assert.equal(fake.requestsTo('PUT', `/fal-ai/z-image/requests/${submitted.upstreamId}/cancel`).length, 1);
    assert.deepEqual(await p.poll(j, submitted.upstreamId), {
      kind: 'failed',
      error: { message: 'fal: Request was cancelled (client_cancelled)', retryable: true, code: 'canceled' },
    });
  });

  test('cancel of a running request is only a request (the app decides); of a completed one, too late', async () => {
    const p = fal();
    fake.script({ completeAfterMs: 400 });
    const j = job('z-image-turbo', { prompt: 'running' }, 'fal-ai/z-image/turbo');
    const running = await p.submit(j);
    assert.ok(running.kind === 'accepted');
    await new Promise((r) => setTimeout(r, 250));
    assert.deepEqual(await p.cancel?.(j, running.upstreamId), { kind: 'requested' });
    fake.script({ instant: true });
    const done = await p.submit(j);
    assert.ok(done.kind === 'accepted');
    const puts = fake.requestsTo('PUT', `/fal-ai/z-image/requests/${done.upstreamId}/cancel`).length;
    assert.deepEqual(await p.cancel?.(j, done.upstreamId), { kind: 'too_late' });
    assert.equal(fake.requestsTo('PUT', `/fal-ai/z-image/requests/${done.upstreamId}/cancel`).length, puts, 'a completed request is not sent a cancel');
  });

  test('a hung submit is unknown and unknowable; the signed webhook carries the request id and the result', async () => {
    const p = fal({ webhookPublicKeys: [fake.publicKeyX] }, 250);
    fake.script({ hangOnSubmit: true, completeAfterMs: 30 });
    const j = job('z-image-turbo', { prompt: 'hang' }, 'fal-ai/z-image/turbo');
    const outcome = await p.submit(j);
    assert.ok(outcome.kind === 'unknown');
    assert.equal(outcome.error.code, 'timeout');
    assert.deepEqual(await p.reconcile(j), { kind: 'unknowable' });
    const [hook] = await rx.waitFor(`/callbacks/${j.attemptId}`);
    assert.ok(hook);
    const created = [...fake.jobs.values()].find((k) => k.callbackUrl === j.callbackUrl);
    assert.ok(created);
    assert.deepEqual(p.parseCallback?.({ headers: hook.headers, rawBody: hook.rawBody }), {
      upstreamId: created.id,
      outcome: { kind: 'completed', result: { files: [{ fileType: 'image', url: `${fake.url}/files/${created.id}/0.png`, contentType: 'image/png' }], output: null } },
    });
  });

  test('webhook signatures: tampered body, unknown key and stale timestamp are refused; no keys means no trusted outcome', async () => {
    const p = fal({ webhookPublicKeys: [fake.publicKeyX] });
    const j = job('z-image-turbo', { prompt: 'sign me' }, 'fal-ai/z-image/turbo');
    const submitted = await p.submit(j);
    assert.ok(submitted.kind === 'accepted');
    const [hook] = await rx.waitFor(`/callbacks/${j.attemptId}`);
    assert.ok(hook);
    assert.equal(p.parseCallback?.({ headers: hook.headers, rawBody: hook.rawBody })?.outcome?.kind, 'completed');
    const tampered = Buffer.from(hook.rawBody.toString().replace('"OK"', '"ERROR"'));
    assert.equal(p.parseCallback?.({ headers: hook.headers, rawBody: tampered }), undefined);
    const other = await startFalFake();
    try {
      const otherKey = fal({ webhookPublicKeys: [other.publicKeyX] });
      assert.equal(otherKey.parseCallback?.({ headers: hook.headers, rawBody: hook.rawBody }), undefined);
    } finally {
      await other.close();
    }
    const body = hook.rawBody.toString();
    const stale = fake.signedHeaders(submitted.upstreamId, body, Math.floor(Date.now() / 1000) - 600);
    assert.equal(p.parseCallback?.({ headers: stale, rawBody: hook.rawBody }), undefined);
    assert.deepEqual(fal().parseCallback?.({ headers: {}, rawBody: hook.rawBody }), { upstreamId: submitted.upstreamId });
  });

  test('keys fetched from the JWKS URL verify webhooks; an ERROR webhook is a failed outcome', async () => {
    const p = fal({ webhookJwksUrl: fake.jwksUrl });
    fake.script({ acceptThenFail: { code: 422, message: 'prompt too long' }, completeAfterMs: 10 });
    const j = job('z-image-turbo', { prompt: 'bad' }, 'fal-ai/z-image/turbo');
    const submitted = await p.submit(j);
    assert.ok(submitted.kind === 'accepted');
    const [hook] = await rx.waitFor(`/callbacks/${j.attemptId}`);
    assert.ok(hook);
    // The key set is fetched in the background at start; until it arrives a webhook carries no outcome.
    let notice = p.parseCallback?.({ headers: hook.headers, rawBody: hook.rawBody });
    for (let i = 0; i < 100 && !notice?.outcome; i += 1) {
      await sleep(20);
      notice = p.parseCallback?.({ headers: hook.headers, rawBody: hook.rawBody });
    }
    assert.ok(fake.requestsTo('GET', '/.well-known/jwks.json').length >= 1);
    assert.deepEqual(notice, {
      upstreamId: submitted.upstreamId,
      outcome: { kind: 'failed', error: { message: 'fal: Invalid status code: 422: body.prompt: prompt too long', retryable: false, status: 422, code: 'invalid_request' } },
    });
  });

  test('a late success is observable through polling', async () => {
    const p = fal();
    fake.script({ completeAfterMs: 20, lateSuccessAfterMs: 400 });
    const j = job('z-image-turbo', { prompt: 'late' }, 'fal-ai/z-image/turbo');
    const submitted = await p.submit(j);
    assert.ok(submitted.kind === 'accepted');
    assert.equal((await pollUntilDone(p, j, submitted.upstreamId)).outcome.kind, 'failed');
    await sleep(420);
    assert.equal((await p.poll(j, submitted.upstreamId)).kind, 'completed');
    const hooks = await rx.waitFor(`/callbacks/${j.attemptId}`, 2);
    assert.deepEqual(hooks.map((h) => (JSON.parse(h.rawBody.toString()) as { status: string }).status), ['ERROR', 'OK']);
  });
});
