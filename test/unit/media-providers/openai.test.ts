import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { GuardedHttpClient } from '../../../src/adapters/outbound/guarded-http-client.ts';
import type { MediaJob, MediaProvider } from '../../../src/providers/media/media-provider.ts';
import { openAiImageQuality, openAiImageSize } from '../../../src/providers/media/openai/openai-sizes.ts';
import { createMediaProvider } from '../../../src/providers/registries/media.registry.ts';
import { type OpenAiFake, startOpenAiFake } from '../../fakes/media/openai.fake.ts';
import { isMp4, makeJob, PNG_MAGIC, pollUntilDone, sleep } from './helpers.ts';

let fake: OpenAiFake;
const providers: MediaProvider[] = [];
const guarded = new GuardedHttpClient({ allowPrivate: true });

function openai(options: Record<string, unknown> = {}, timeoutMs = 2_000, guardedHttp: GuardedHttpClient | undefined = guarded, apiKey = fake.apiKey): MediaProvider {
  const p = createMediaProvider(
    'openai',
    { type: 'openai', baseUrl: `${fake.url}/v1`, apiKey, timeoutMs, concurrency: 4, options: { pollIntervalMs: 10, retryPollMs: 25, imageTimeoutMs: timeoutMs, ...options } },
    guardedHttp ? { guardedHttp } : {},
  );
  providers.push(p);
  return p;
}

function job(model: string, input: Record<string, unknown>, upstreamModel: string): MediaJob {
  return makeJob(model, input, { upstreamModel });
}

before(async () => {
  fake = await startOpenAiFake();
});

after(async () => {
  await Promise.all([...providers.map((p) => p.close?.()), fake.close()]);
});

describe('OpenAI image sizes', () => {
  test('newer models get the tier as the long side, inside the pixel bounds, in multiples of 16', () => {
    assert.equal(openAiImageSize('gpt-image-2', '16:9', '2k'), '2048x1152');
    assert.equal(openAiImageSize('gpt-image-2', '1:1', '1k'), '1024x1024');
    // 576x1024 has too few pixels: scaled up and stepped to 624x1072.
    assert.equal(openAiImageSize('gpt-image-2', '9:16', '1k'), '624x1072');
    assert.equal(openAiImageSize('gpt-image-2', '1:1', '4k'), '2880x2880');
    assert.equal(openAiImageSize('gpt-image-2', '3:1', '1k'), '1408x480');
    assert.equal(openAiImageSize('gpt-image-2', 'auto', '2k'), 'auto');
    for (const [size, tier] of [['9:16', '1k'], ['21:9', '4k'], ['1:3', '2k'], ['4:5', '4k']] as const) {
      const [w, h] = openAiImageSize('gpt-image-2', size, tier).split('x').map(Number) as [number, number];
      assert.equal(w % 16, 0, `${size} ${tier}`);
      assert.equal(h % 16, 0, `${size} ${tier}`);
      assert.ok(w * h >= 655_360 && w * h <= 8_294_400, `${size} ${tier}: ${w}x${h}`);
      assert.ok(Math.max(w, h) <= 3840);
    }
  });

  test('fixed-size models take the closest orientation at quality medium; newer ones the configured quality', () => {
    assert.equal(openAiImageSize('gpt-image-1.5', '16:9', '1k'), '1536x1024');
    assert.equal(openAiImageSize('gpt-image-1', '2:3', '1k'), '1024x1536');
    assert.equal(openAiImageQuality('gpt-image-1.5', undefined), 'medium');
    assert.equal(openAiImageQuality('gpt-image-1.5', 'high'), 'medium');
    assert.equal(openAiImageQuality('gpt-image-2', undefined), 'medium');
    assert.equal(openAiImageQuality('gpt-image-2', 'high'), 'high');
  });

  test('issue 30, items 3 and 11: what OpenAI cannot make is refused before dispatch', () => {
    const local = openai();
    // gpt-image-1.5 has no 2k or 4k (it would go out as 1536x1024 at quality high).
    assert.equal(local.refusal?.(job('gpt-image-1.5', { prompt: 'p', resolution: '4k' }, 'gpt-image-1.5'))?.field, 'resolution');
    assert.equal(local.refusal?.(job('gpt-image-1.5', { prompt: 'p', resolution: '2k' }, 'gpt-image-1.5'))?.field, 'resolution');
    assert.equal(local.refusal?.(job('gpt-image-1.5', { prompt: 'p' }, 'gpt-image-1.5')), undefined);
    assert.equal(local.refusal?.(job('gpt-image-2-official', { prompt: 'p', resolution: '4k' }, 'gpt-image-2')), undefined);
    // VideoSeconds is 4, 8, 12 on an OpenAI-compatible base; on api.openai.com Sora is gone.
    assert.equal(local.refusal?.(job('sora-2-official', { prompt: 'p', duration: 16 }, 'sora-2'))?.field, 'duration');
    assert.equal(local.refusal?.(job('sora-2-official', { prompt: 'p', duration: 12 }, 'sora-2')), undefined);
    const real = createMediaProvider('openai-real', { type: 'openai', baseUrl: 'https://api.openai.com/v1', apiKey: 'k', timeoutMs: 1_000, concurrency: 1, options: {} });
    providers.push(real);
    assert.deepEqual(real.refusal?.(job('sora-2-official', { prompt: 'p' }, 'sora-2'))?.scope, 'route');
  });

  test('issue 30, item 3: gpt-image-1.5 at 4k is not sent; at 1k it goes out at medium and the strict fake accepts it', async () => {
    const before = fake.requests.length;
    const refused = await openai().submit(job('gpt-image-1.5', { prompt: 'p', resolution: '4k', size: '3:2' }, 'gpt-image-1.5'));
    assert.ok(refused.kind === 'failed' && refused.error.code === 'unsupported' && refused.error.retryable, JSON.stringify(refused));
    assert.equal(fake.requests.length, before, 'nothing sent');
    const made = await openai({ imageQuality: 'high' }).submit(job('gpt-image-1.5', { prompt: 'p', size: '3:2' }, 'gpt-image-1.5'));
    assert.equal(made.kind, 'completed', JSON.stringify(made));
    assert.deepEqual(fake.lastJson('POST', '/v1/images/generations'), { model: 'gpt-image-1.5', prompt: 'p', n: 1, size: '1536x1024', quality: 'medium', output_format: 'png' });
  });
});

describe('OpenAI Images', () => {
  test('a generation is synchronous and returns the image bytes inline', async () => {
    const outcome = await openai().submit(job('gpt-image-2-official', { prompt: 'a tiny robot', size: '16:9', resolution: '2k' }, 'gpt-image-2'));
    assert.equal(outcome.kind, 'completed');
    assert.ok(outcome.kind === 'completed');
    const file = outcome.result.files[0];
    assert.equal(outcome.result.files.length, 1);
    assert.equal(file?.fileType, 'image');
    assert.equal(file?.contentType, 'image/png');
    assert.ok(file?.data?.equals(fake.assets.png));
    assert.equal(file?.url, undefined);
    const sent = fake.requestsTo('POST', '/v1/images/generations').at(-1);
    assert.equal(sent?.headers.authorization, 'Bearer sk-test-key');
    assert.deepEqual(sent?.json, { model: 'gpt-image-2', prompt: 'a tiny robot', n: 1, size: '2048x1152', quality: 'medium', output_format: 'png' });
  });

  test('reference images are fetched through the guarded client (or decoded) and sent as a multipart edit', async () => {
    const dataUri = `data:image/png;base64,${fake.assets.png.toString('base64')}`;
    const imageUrl = `${fake.url}/files/ref/0.png`;
    const outcome = await openai().submit(job('gpt-image-1.5', { prompt: 'make it blue', urls: [imageUrl, dataUri], size: '3:4' }, 'gpt-image-1.5'));
    assert.equal(outcome.kind, 'completed');
    const call = fake.imageCalls.at(-1);
    assert.equal(call?.path, '/v1/images/edits');
    assert.deepEqual(call?.fields, { model: 'gpt-image-1.5', prompt: 'make it blue', n: '1', size: '1024x1536', quality: 'medium', output_format: 'png' });
    assert.deepEqual(call?.files, [
      { field: 'image[]', name: 'image-1.png', type: 'image/png', bytes: fake.assets.png.length },
      { field: 'image[]', name: 'image-2.png', type: 'image/png', bytes: fake.assets.png.length },
    ]);
  });

  test('a reference at a private address is refused by the guarded client: a request problem, not retryable', async () => {
    const strict = openai({}, 2_000, new GuardedHttpClient({ allowPrivate: false }));
    const before = fake.imageCalls.length;
    const outcome = await strict.submit(job('gpt-image-1.5', { prompt: 'p', urls: [`${fake.url}/files/ref/0.png`] }, 'gpt-image-1.5'));
    assert.ok(outcome.kind === 'failed');
    assert.equal(outcome.error.retryable, false);
    assert.equal(outcome.error.code, 'invalid_request');
    assert.match(outcome.error.message, /^input\.urls\[0\]: the address 127\.0\.0\.1 is not allowed/u);
    assert.equal(fake.imageCalls.length, before);
  });

  test('errors: moderation is not retryable; quota (429 insufficient_quota), throttling and auth are', async () => {
    fake.script({ acceptThenFail: true });
    const blocked = await openai().submit(job('gpt-image-1.5', { prompt: 'p' }, 'gpt-image-1.5'));
    assert.deepEqual(blocked, {
      kind: 'failed',
      error: { message: 'openai images: 400 moderation_blocked Your request was rejected by the safety system.', retryable: false, status: 400, code: 'content_policy' },
    });
    fake.script({ failOnSubmit: { status: 429, body: { error: { message: 'You exceeded your current quota.', type: 'insufficient_quota', param: null, code: 'insufficient_quota' } } } });
    const quota = await openai().submit(job('gpt-image-1.5', { prompt: 'p' }, 'gpt-image-1.5'));
    assert.ok(quota.kind === 'failed');
    assert.deepEqual([quota.error.retryable, quota.error.code], [true, 'credits']);
    fake.script({ failOnSubmit: { status: 429, body: { error: { message: 'Rate limit reached', type: 'requests', param: null, code: 'rate_limit_exceeded' } } } });
    const limited = await openai().submit(job('gpt-image-1.5', { prompt: 'p' }, 'gpt-image-1.5'));
    assert.ok(limited.kind === 'failed');
    assert.deepEqual([limited.error.retryable, limited.error.code], [true, 'rate_limited']);
    const unauthorized = await openai({}, 2_000, guarded, 'sk-wrong').submit(job('gpt-image-1.5', { prompt: 'p' }, 'gpt-image-1.5'));
    assert.ok(unauthorized.kind === 'failed');
    assert.deepEqual([unauthorized.error.retryable, unauthorized.error.code, unauthorized.error.status], [true, 'auth', 401]);
  });

  test('a synchronous call that never answers is unknown and cannot be looked up', async () => {
    fake.script({ hangOnSubmit: true });
    const p = openai({}, 250);
    const j = job('gpt-image-1.5', { prompt: 'p' }, 'gpt-image-1.5');
    const outcome = await p.submit(j);
    assert.ok(outcome.kind === 'unknown');
    assert.equal(outcome.error.code, 'timeout');
    assert.deepEqual(await p.reconcile(j), { kind: 'unknowable' });
  });
});

describe('OpenAI Videos', () => {
  test('create, poll, and download the MP4 with our key: the bytes come back inline', async () => {
    const p = openai();
    const j = job('sora-2-official', { prompt: 'a paper boat', aspectRatio: '9:16', duration: 8, urls: ['https://m.example/first.png'] }, 'sora-2');
    const submitted = await p.submit(j);
    assert.ok(submitted.kind === 'accepted');
    assert.match(submitted.upstreamId, /^video_[0-9a-f]{32}$/u);
    assert.deepEqual(fake.requestsTo('POST', '/v1/videos').at(-1)?.json, {
      model: 'sora-2',
      prompt: 'a paper boat',
      seconds: '8',
      size: '720x1280',
      input_reference: { image_url: 'https://m.example/first.png' },
    });
    const { outcome } = await pollUntilDone(p, j, submitted.upstreamId);
    assert.ok(outcome.kind === 'completed');
    const file = outcome.result.files[0];
    assert.equal(file?.fileType, 'video');
    assert.equal(file?.contentType, 'video/mp4');
    assert.ok(file?.data && isMp4(file.data));
    assert.equal(fake.requestsTo('GET', `/v1/videos/${submitted.upstreamId}/content`).at(-1)?.headers.authorization, 'Bearer sk-test-key');
  });

  test('a failed video: retryable, unless moderation blocked it', async () => {
    const p = openai();
    fake.script({ acceptThenFail: { code: 'internal_error', message: 'render failed' }, completeAfterMs: 10 });
    const a = job('sora-2-official', { prompt: 'p' }, 'sora-2');
    const sa = await p.submit(a);
    assert.ok(sa.kind === 'accepted');
    assert.deepEqual((await pollUntilDone(p, a, sa.upstreamId)).outcome, {
      kind: 'failed',
      error: { message: 'openai video failed (internal_error): render failed', retryable: true, code: 'generation_failed' },
    });
    fake.script({ acceptThenFail: { code: 'moderation_blocked', message: 'blocked' }, completeAfterMs: 10 });
    const b = job('sora-2-official', { prompt: 'p' }, 'sora-2');
    const sb = await p.submit(b);
    assert.ok(sb.kind === 'accepted');
    const failed = (await pollUntilDone(p, b, sb.upstreamId)).outcome;
    assert.ok(failed.kind === 'failed');
    assert.deepEqual([failed.error.retryable, failed.error.code], [false, 'content_policy']);
  });

  test('durations the API does not make are unsupported, without a request', async () => {
    const before = fake.requests.length;
    for (const [model, duration] of [['sora-2', 10], ['sora-2-official', 16], ['sora-2-official', 20]] as const) {
      const outcome = await openai().submit(job(model, { prompt: 'p', duration }, 'sora-2'));
      assert.deepEqual(outcome, { kind: 'failed', error: { message: `openai: the OpenAI Videos API makes 4, 8 or 12 s videos, not ${duration} s`, retryable: true, code: 'unsupported' } });
    }
    assert.equal(fake.requests.length, before);
  });

  test('a hung create is unknown; reconcile finds it by listing, says absent for another, unknowable when ambiguous', async () => {
    const p = openai({}, 250);
    fake.script({ hangOnSubmit: true });
    const j = job('sora-2-official', { prompt: 'find me by listing', duration: 12 }, 'sora-2');
    const outcome = await p.submit(j);
    assert.ok(outcome.kind === 'unknown');
    const created = [...fake.jobs.values()].find((v) => v.meta.prompt === 'find me by listing');
    assert.ok(created);
    const slow = openai();
    assert.deepEqual(await slow.reconcile(j), { kind: 'found', upstreamId: created.id });
    assert.equal(fake.requestsTo('GET', '/v1/videos').filter((r) => r.path === '/v1/videos').at(-1)?.query.order, 'desc');
    assert.deepEqual(await slow.reconcile(job('sora-2-official', { prompt: 'never sent' }, 'sora-2')), { kind: 'absent' });
    const twin = job('sora-2-official', { prompt: 'find me by listing', duration: 12 }, 'sora-2');
    assert.equal((await slow.submit(twin)).kind, 'accepted');
    assert.deepEqual(await slow.reconcile(j), { kind: 'unknowable' });
  });

  test('a late success is observable through polling', async () => {
    const p = openai();
    fake.script({ completeAfterMs: 20, lateSuccessAfterMs: 400 });
    const j = job('sora-2-official', { prompt: 'late' }, 'sora-2');
    const submitted = await p.submit(j);
    assert.ok(submitted.kind === 'accepted');
    assert.equal((await pollUntilDone(p, j, submitted.upstreamId)).outcome.kind, 'failed');
    await sleep(420);
    const late = await p.poll(j, submitted.upstreamId);
    assert.ok(late.kind === 'completed');
    assert.ok(late.result.files[0]?.data?.equals(fake.assets.mp4));
  });
});

test('PNG magic of the fake asset (sanity)', () => {
  assert.ok(fake.assets.png.subarray(0, 4).equals(PNG_MAGIC));
});
