import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { MediaJob, MediaProvider } from '../../../src/providers/media/media-provider.ts';
import { createMediaProvider } from '../../../src/providers/registries/media.registry.ts';
import { predictionOutcome } from '../../../src/providers/media/replicate/replicate.provider.ts';
import { replicateInput } from '../../../src/providers/media/replicate/replicate.mapping.ts';
import { type ReplicateFake, startReplicateFake } from '../../fakes/media/replicate.fake.ts';
import { CallbackReceiver, download, isMp4, makeJob, PNG_MAGIC, pollUntilDone, sleep } from './helpers.ts';

let fake: ReplicateFake;
let rx: CallbackReceiver;
const providers: MediaProvider[] = [];

function replicate(options: Record<string, unknown> = {}, timeoutMs = 2_000, target: ReplicateFake = fake, apiKey = target.apiToken): MediaProvider {
  const p = createMediaProvider('replicate', { type: 'replicate', baseUrl: `${target.url}/v1`, apiKey, timeoutMs, concurrency: 4, options: { pollIntervalMs: 10, retryPollMs: 25, ...options } });
  providers.push(p);
  return p;
}

function job(model: string, input: Record<string, unknown>, upstreamModel: string): MediaJob {
  const made = makeJob(model, input, { upstreamModel });
  return { ...made, callbackUrl: rx.urlFor(made.attemptId) };
}

before(async () => {
  [fake, rx] = await Promise.all([startReplicateFake(), new CallbackReceiver().listen()]);
});

after(async () => {
  await Promise.all([...providers.map((p) => p.close?.()), fake.close(), rx.close()]);
});

describe('replicate predictions', () => {
  test('an official model: create with a completed-only webhook, poll until succeeded', async () => {
    const p = replicate();
    const j = job('gpt-image-1.5', { prompt: 'a fox', size: '3:2', resolution: '1k', urls: ['https://m.example/a.png'] }, 'openai/gpt-image-1.5');
    const submitted = await p.submit(j);
    assert.ok(submitted.kind === 'accepted');
    const sent = fake.requestsTo('POST', '/v1/models/openai/gpt-image-1.5/predictions').at(-1);
    assert.equal(sent?.headers.authorization, 'Bearer r8_test_token');
    assert.deepEqual(sent?.json, {
      input: { prompt: 'a fox', input_images: ['https://m.example/a.png'], aspect_ratio: '3:2', quality: 'medium', number_of_images: 1, output_format: 'png' },
      webhook: j.callbackUrl,
      webhook_events_filter: ['completed'],
    });
    const { outcome } = await pollUntilDone(p, j, submitted.upstreamId);
    assert.deepEqual(outcome, { kind: 'completed', result: { files: [{ fileType: 'image', url: `${fake.url}/files/${submitted.upstreamId}/0.png` }], output: null } });
    assert.ok((await download(`${fake.url}/files/${submitted.upstreamId}/0.png`)).body.subarray(0, 4).equals(PNG_MAGIC));
  });

  test('a pinned version goes to POST /predictions; a video output is a single URL', async () => {
    const p = replicate();
    fake.versions.set('abc123', 'openai/gpt-image-1.5');
    const j = job('gpt-image-1.5', { prompt: 'pinned', size: '2:3' }, 'openai/gpt-image-1.5:abc123');
    const submitted = await p.submit(j);
    assert.ok(submitted.kind === 'accepted');
    const sent = fake.lastJson('POST', '/v1/predictions');
    assert.equal(sent.version, 'abc123');
    assert.deepEqual(sent.input, { prompt: 'pinned', aspect_ratio: '2:3', quality: 'medium', number_of_images: 1, output_format: 'png' });
    assert.equal((await pollUntilDone(p, j, submitted.upstreamId)).outcome.kind, 'completed');
    // Video models answer one URL; Wan 2.7's input names are a guess (no schema recorded), so only the mapping is shown.
    const wan = makeJob('wan-2.7', { prompt: 'edit this', editVideoUrl: 'https://m.example/src.mp4', duration: 5 }, { upstreamModel: 'wan-video/wan-2.7-videoedit:abc' });
    assert.deepEqual(replicateInput(wan, { openaiApiKey: undefined }), { prompt: 'edit this', video: 'https://m.example/src.mp4', aspect_ratio: '16:9', resolution: '720p', duration: 5 });
    const video = predictionOutcome({ status: 'succeeded', output: `${fake.url}/files/x/0.mp4` }, wan.outputSpec);
    assert.ok(video?.kind === 'completed');
    assert.equal(video.result.files[0]?.fileType, 'video');
    assert.ok(isMp4((await download(video.result.files[0]?.url ?? '')).body));
  });

  test('an instant prediction completes in the create answer', async () => {
    fake.script({ instant: true, noCallback: true });
    const outcome = await replicate().submit(job('gpt-image-1.5', { prompt: 'fast' }, 'openai/gpt-image-1.5'));
    assert.equal(outcome.kind, 'completed');
    assert.ok(outcome.kind === 'completed');
    assert.equal(outcome.result.files.length, 1);
    assert.equal(outcome.result.files[0]?.url, `${fake.url}/files/${outcome.upstreamId}/0.png`);
  });
});

describe('replicate errors', () => {
  test('422 validation is not retryable; 401, 402 and 429 are', async () => {
    // Replicate's validation answer (its changelog's shape), for a body the strict fake would accept.
    fake.script({ failOnSubmit: { status: 422, body: { title: 'Input validation failed', detail: '- input: prompt is required', status: 422, invalid_fields: [{ type: 'required', field: 'input', description: 'prompt is required' }] } } });
    const missingPrompt = await replicate().submit(job('gpt-image-1.5', { prompt: 'p' }, 'openai/gpt-image-1.5'));
    assert.deepEqual(missingPrompt, { kind: 'failed', error: { message: 'replicate submit: 422 - input: prompt is required', retryable: false, status: 422, code: 'invalid_request' } });
    const unauthenticated = await replicate({}, 2_000, fake, 'r8_wrong').submit(job('gpt-image-1.5', { prompt: 'p' }, 'openai/gpt-image-1.5'));
    assert.deepEqual(unauthenticated, { kind: 'failed', error: { message: 'replicate submit: 401 You did not pass a valid authentication token', retryable: true, status: 401, code: 'auth' } });
    fake.script({ failOnSubmit: { status: 402, body: { title: 'Insufficient credit', detail: 'You have insufficient credit to run this model.', status: 402 } } });
    const broke = await replicate().submit(job('gpt-image-1.5', { prompt: 'p' }, 'openai/gpt-image-1.5'));
    assert.ok(broke.kind === 'failed');
    assert.deepEqual([broke.error.retryable, broke.error.code, broke.error.status], [true, 'credits', 402]);
    fake.script({ failOnSubmit: { status: 429, body: { detail: 'Request was throttled.', status: 429 }, headers: { 'retry-after': '3' } } });
    const throttled = await replicate().submit(job('gpt-image-1.5', { prompt: 'p' }, 'openai/gpt-image-1.5'));
    assert.ok(throttled.kind === 'failed');
    assert.deepEqual([throttled.error.retryable, throttled.error.code], [true, 'rate_limited']);
  });

  test('a failed prediction is a retryable generation failure carrying its error', async () => {
    const p = replicate();
    fake.script({ acceptThenFail: { message: 'NSFW content detected' }, completeAfterMs: 10 });
    const j = job('gpt-image-1.5', { prompt: 'p' }, 'openai/gpt-image-1.5');
    const submitted = await p.submit(j);
    assert.ok(submitted.kind === 'accepted');
    assert.deepEqual((await pollUntilDone(p, j, submitted.upstreamId)).outcome, {
      kind: 'failed',
      error: { message: 'replicate: NSFW content detected', retryable: true, code: 'generation_failed' },
    });
  });
});

describe('replicate cancel, reconcile and webhooks', () => {
  test('cancel posts to /cancel and the prediction reads as canceled', async () => {
    const p = replicate();
    fake.script({ completeAfterMs: 5_000, noCallback: true });
    const j = job('gpt-image-1.5', { prompt: 'slow' }, 'openai/gpt-image-1.5');
    const submitted = await p.submit(j);
    assert.ok(submitted.kind === 'accepted');
    assert.deepEqual(await p.cancel?.(j, submitted.upstreamId), { kind: 'cancelled' });
    assert.equal(fake.requestsTo('POST', `/v1/predictions/${submitted.upstreamId}/cancel`).length, 1);
    assert.deepEqual(await p.poll(j, submitted.upstreamId), { kind: 'failed', error: { message: 'replicate: the prediction was canceled', retryable: true, code: 'canceled' } });
  });

  test('cancel of a prediction that already succeeded changes nothing: too late', async () => {
    const p = replicate();
    fake.script({ completeAfterMs: 10, noCallback: true });
    const j = job('gpt-image-1.5', { prompt: 'quick' }, 'openai/gpt-image-1.5');
    const submitted = await p.submit(j);
    assert.ok(submitted.kind === 'accepted');
    await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(await p.cancel?.(j, submitted.upstreamId), { kind: 'too_late' });
    assert.equal((await p.poll(j, submitted.upstreamId)).kind, 'completed');
  });

  test('a hung submit is unknown; reconcile lists predictions across pages and matches the webhook URL', async () => {
    const paged = await startReplicateFake({ pageSize: 2 });
    try {
      const p = replicate({}, 250, paged);
      paged.seedPrediction('openai/gpt-image-1.5', { prompt: 'older' }, 'https://elsewhere.example/hook/1');
      paged.script({ hangOnSubmit: true, noCallback: true });
      const j = job('gpt-image-1.5', { prompt: 'lost answer' }, 'openai/gpt-image-1.5');
      const outcome = await p.submit(j);
      assert.ok(outcome.kind === 'unknown');
      assert.equal(outcome.error.code, 'timeout');
      paged.seedPrediction('openai/gpt-image-1.5', { prompt: 'newer' }, 'https://elsewhere.example/hook/2');
      paged.seedPrediction('black-forest-labs/flux-dev', { prompt: 'other model' }, 'https://elsewhere.example/hook/3');
      const created = [...paged.jobs.values()].find((k) => k.meta.webhook === j.callbackUrl);
      assert.ok(created);
      const slow = replicate({}, 2_000, paged);
      assert.deepEqual(await slow.reconcile(j), { kind: 'found', upstreamId: created.id });
      // Two list pages were read; only predictions of this model were opened to read their webhook.
      assert.equal(paged.requestsTo('GET', '/v1/predictions').filter((r) => r.path === '/v1/predictions').length, 2);
      assert.equal(paged.requestsTo('GET', '/v1/predictions/').length, 2);
      const { outcome: polled } = await pollUntilDone(slow, j, created.id);
      assert.equal(polled.kind, 'completed');
      const never = job('gpt-image-1.5', { prompt: 'never sent' }, 'openai/gpt-image-1.5');
      assert.deepEqual(await slow.reconcile(never), { kind: 'absent' });
    } finally {
      await paged.close();
    }
  });

  test('verified webhooks carry the outcome; a bad signature is refused; without a secret only the id', async () => {
    const p = replicate({ webhookSecret: fake.webhookSecret });
    const j = job('gpt-image-1.5', { prompt: 'hook' }, 'openai/gpt-image-1.5');
    const submitted = await p.submit(j);
    assert.ok(submitted.kind === 'accepted');
    const [hook] = await rx.waitFor(`/callbacks/${j.attemptId}`);
    assert.ok(hook);
    assert.deepEqual(p.parseCallback?.({ headers: hook.headers, rawBody: hook.rawBody }), {
      upstreamId: submitted.upstreamId,
      outcome: { kind: 'completed', result: { files: [{ fileType: 'image', url: `${fake.url}/files/${submitted.upstreamId}/0.png` }], output: null } },
    });
    const forged = Buffer.from(hook.rawBody.toString().replace('"succeeded"', '"failed"'));
    assert.equal(p.parseCallback?.({ headers: hook.headers, rawBody: forged }), undefined);
    const old = fake.signedHeaders(hook.rawBody.toString(), 'msg_old', new Date(Date.now() - 3_600_000));
    assert.equal(p.parseCallback?.({ headers: old, rawBody: hook.rawBody }), undefined);
    assert.equal(replicate({ webhookSecret: 'whsec_b3RoZXItc2VjcmV0LW90aGVyLXNlY3JldA==' }).parseCallback?.({ headers: hook.headers, rawBody: hook.rawBody }), undefined);
    assert.deepEqual(replicate().parseCallback?.({ headers: {}, rawBody: hook.rawBody }), { upstreamId: submitted.upstreamId });
  });

  test('a late success is observable through polling and a second webhook', async () => {
    const p = replicate({ webhookSecret: fake.webhookSecret });
    fake.script({ completeAfterMs: 20, lateSuccessAfterMs: 400 });
    const j = job('gpt-image-1.5', { prompt: 'late' }, 'openai/gpt-image-1.5');
    const submitted = await p.submit(j);
    assert.ok(submitted.kind === 'accepted');
    assert.equal((await pollUntilDone(p, j, submitted.upstreamId)).outcome.kind, 'failed');
    await sleep(420);
    assert.equal((await p.poll(j, submitted.upstreamId)).kind, 'completed');
    const hooks = await rx.waitFor(`/callbacks/${j.attemptId}`, 2);
    const kinds = hooks.map((h) => p.parseCallback?.({ headers: h.headers, rawBody: h.rawBody })?.outcome?.kind);
    assert.deepEqual(kinds, ['failed', 'completed']);
  });
});
