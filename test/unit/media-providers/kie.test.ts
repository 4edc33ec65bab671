import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { kieJobRequest } from '../../../src/providers/media/kie/kie-jobs.mapping.ts';
import type { MediaJob, MediaProvider } from '../../../src/providers/media/media-provider.ts';
import { createMediaProvider } from '../../../src/providers/registries/media.registry.ts';
import { type KieFake, startKieFake } from '../../fakes/media/kie.fake.ts';
import { CallbackReceiver, download, isMp3, isMp4, makeJob, PNG_MAGIC, pollUntilDone, sleep } from './helpers.ts';

let fake: KieFake;
let signedFake: KieFake;
let rx: CallbackReceiver;
const providers: MediaProvider[] = [];

function kie(options: Record<string, unknown> = {}, target: KieFake = fake, timeoutMs = 2_000): MediaProvider {
  const p = createMediaProvider('kie-main', { type: 'kie', baseUrl: target.url, apiKey: target.apiKey, timeoutMs, concurrency: 4, options: { pollIntervalMs: 10, retryPollMs: 25, ...options } });
  providers.push(p);
  return p;
}

function job(model: string, input: Record<string, unknown>, overrides: Partial<MediaJob> = {}): MediaJob {
  const made = makeJob(model, input, overrides);
  return { ...made, callbackUrl: rx.urlFor(made.attemptId), ...overrides };
}

before(async () => {
  [fake, signedFake, rx] = await Promise.all([startKieFake(), startKieFake({ webhookHmacKey: 'kie-hmac-secret' }), new CallbackReceiver().listen()]);
});

after(async () => {
  await Promise.all([...providers.map((p) => p.close?.()), fake.close(), signedFake.close(), rx.close()]);
});

describe('kie Market jobs', () => {
  test('submit, poll and complete a Sora job with its mapped input and a real MP4', async () => {
    const p = kie();
    const j = job('sora-2', { prompt: 'a cat on a boat', aspectRatio: '9:16', duration: 15 });
    const submitted = await p.submit(j);
    assert.equal(submitted.kind, 'accepted');
    assert.ok(submitted.kind === 'accepted');
    const sent = fake.requestsTo('POST', '/api/v1/jobs/createTask').at(-1);
    assert.equal(sent?.headers.authorization, 'Bearer kie-test-key');
    assert.deepEqual(sent?.json, {
      model: 'sora-2-text-to-video',
      input: { prompt: 'a cat on a boat', aspect_ratio: 'portrait', n_frames: '15', remove_watermark: true },
      callBackUrl: j.callbackUrl,
    });
    const { outcome } = await pollUntilDone(p, j, submitted.upstreamId);
    assert.equal(outcome.kind, 'completed');
    assert.ok(outcome.kind === 'completed');
    assert.deepEqual(outcome.result.files, [{ fileType: 'video', url: `${fake.url}/files/${submitted.upstreamId}/0.mp4` }]);
    assert.equal(outcome.result.output, null);
    assert.equal(fake.requestsTo('GET', '/api/v1/jobs/recordInfo').at(-1)?.query.taskId, submitted.upstreamId);
    const file = await download(outcome.result.files[0]?.url ?? '');
    assert.equal(file.type, 'video/mp4');
    assert.ok(isMp4(file.body));
  });

  test('an image job completes with a PNG typed as an image', async () => {
    const p = kie();
    const j = job('nano-banana-2', { prompt: 'a red kite', size: '4:3', resolution: '2K' });
    const submitted = await p.submit(j);
    assert.ok(submitted.kind === 'accepted');
    const { outcome } = await pollUntilDone(p, j, submitted.upstreamId);
    assert.ok(outcome.kind === 'completed');
    assert.equal(outcome.result.files.length, 1);
    assert.equal(outcome.result.files[0]?.fileType, 'image');
    const file = await download(outcome.result.files[0]?.url ?? '');
    assert.ok(file.body.subarray(0, 4).equals(PNG_MAGIC));
  });

  test('the per-family mapping names kie models and snake_case fields', () => {
    assert.deepEqual(kieJobRequest(makeJob('nano-banana-2', { prompt: 'p', urls: ['https://m.example/a.png'], size: '21:9', resolution: '4K' })), {
      model: 'nano-banana-2',
      input: { prompt: 'p', image_input: ['https://m.example/a.png'], aspect_ratio: '21:9', resolution: '4K', output_format: 'png' },
    });
    assert.deepEqual(kieJobRequest(makeJob('sora-2-pro', { prompt: 'p', urls: ['https://m.example/a.png'], duration: 10 })), {
      model: 'sora-2-pro-image-to-video',
      input: { prompt: 'p', aspect_ratio: 'landscape', image_urls: ['https://m.example/a.png'], n_frames: '10', remove_watermark: true },
    });
    const storyboard = kieJobRequest(makeJob('sora-2-pro', { prompt: 'long', duration: 25 }));
    assert.equal(storyboard.model, 'sora-2-pro-storyboard');
    assert.deepEqual(storyboard.input.shots, [{ Scene: 'long', duration: 25 }]);
    assert.equal(storyboard.input.n_frames, '25');
    assert.deepEqual(kieJobRequest(makeJob('grok-imagine-video', { prompt: 'p', urls: ['https://m.example/a.png'], duration: 10, resolution: '720p' })), {
      model: 'grok-imagine/image-to-video',
      input: { prompt: 'p', aspect_ratio: '16:9', duration: '10', resolution: '720p', image_urls: ['https://m.example/a.png'], mode: 'normal' },
    });
    const seedance = kieJobRequest(
      makeJob('seedance-2.0', {
        prompt: 'p',
        imageWithRoles: [
          { url: 'https://m.example/first.png', role: 'first_frame' },
          { url: 'https://m.example/last.png', role: 'last_frame' },
        ],
        tools: [{ type: 'web_search' }],
      }),
    );
    assert.deepEqual(seedance, {
      model: 'bytedance/seedance-2',
      input: {
        prompt: 'p',
        duration: '5',
        aspect_ratio: '16:9',
        resolution: '480p',
        generate_audio: true,
        nsfw_checker: false,
        return_last_frame: false,
        first_frame_url: 'https://m.example/first.png',
        last_frame_url: 'https://m.example/last.png',
        web_search: true,
      },
    });
    assert.deepEqual(kieJobRequest(makeJob('qwen-image', { prompt: 'p', urls: ['https://m.example/a.png'], size: '9:16' })), {
      model: 'qwen/image-edit',
      input: { prompt: 'p', image_url: 'https://m.example/a.png', image_size: 'portrait_16_9', enable_safety_checker: true },
    });
    assert.deepEqual(kieJobRequest(makeJob('kling-2.6-motion-control', { imageUrls: ['https://m.example/a.png'], videoUrls: ['https://m.example/a.mp4'], characterOrientation: 'video' })), {
      model: 'kling-2.6/motion-control',
      input: { input_urls: ['https://m.example/a.png'], video_urls: ['https://m.example/a.mp4'], character_orientation: 'video', mode: '720p' },
    });
    const extend = kieJobRequest(
      makeJob('pixverse-v6', { prompt: 'more', extendFromTaskId: 'task_parent' }, { parents: { task_parent: { upstreamId: 'kie_parent_1', output: null } } }),
    );
    assert.equal(extend.model, 'pixverse-v6/extend');
    assert.equal(extend.input.task_id, 'kie_parent_1');
    assert.equal(extend.input.extend_from_task_id, undefined);
    assert.deepEqual(kieJobRequest(makeJob('gpt-image-1.5', { prompt: 'p' })), {
      model: 'gpt-image/1.5-text-to-image',
      input: { prompt: 'p', aspect_ratio: '1:1', quality: 'medium' },
    });
  });

  test('an explicit kie model name in the route is used verbatim', () => {
    const req = kieJobRequest(makeJob('sora-2', { prompt: 'p' }, { upstreamModel: 'sora-2-pro-text-to-video' }));
    assert.equal(req.model, 'sora-2-pro-text-to-video');
  });
});

describe('kie Veo API', () => {
  test('first and last frames go to /veo/generate and come back from /veo/record-info', async () => {
    const p = kie();
    const j = job('veo-3.1-fast', { prompt: 'a bridge', urls: ['https://m.example/1.png', 'https://m.example/2.png'], aspectRatio: '9:16' });
    const submitted = await p.submit(j);
    assert.ok(submitted.kind === 'accepted');
    assert.deepEqual(fake.requestsTo('POST', '/api/v1/veo/generate').at(-1)?.json, {
      prompt: 'a bridge',
      model: 'veo3_fast',
      aspect_ratio: '9:16',
      generationType: 'FIRST_AND_LAST_FRAMES_2_VIDEO',
      resolution: '1080p',
      enableTranslation: false,
      callBackUrl: j.callbackUrl,
      imageUrls: ['https://m.example/1.png', 'https://m.example/2.png'],
    });
    const { outcome } = await pollUntilDone(p, j, submitted.upstreamId);
    assert.ok(outcome.kind === 'completed');
    assert.equal(outcome.result.files[0]?.fileType, 'video');
    assert.equal(fake.requestsTo('GET', '/api/v1/veo/record-info').at(-1)?.query.taskId, submitted.upstreamId);
  });

});

describe('kie Suno API', () => {
  test('a song completes with two tracks: files and output.tracks in the same order', async () => {
    const p = kie();
    const j = job('suno', { gptDescriptionPrompt: 'a rainy day in Lisbon', mv: 'v4.5+' });
    const submitted = await p.submit(j);
    assert.ok(submitted.kind === 'accepted');
    assert.deepEqual(fake.requestsTo('POST', '/api/v1/generate').at(-1)?.json, {
      customMode: false,
      instrumental: false,
      prompt: 'a rainy day in Lisbon',
      model: 'V4_5PLUS',
      callBackUrl: j.callbackUrl,
    });
    const { outcome } = await pollUntilDone(p, j, submitted.upstreamId);
    assert.ok(outcome.kind === 'completed');
    const id = submitted.upstreamId;
    assert.deepEqual(outcome.result.files, [
      { fileType: 'music', url: `${fake.url}/files/${id}/0.mp3` },
      { fileType: 'music', url: `${fake.url}/files/${id}/1.mp3` },
    ]);
    assert.deepEqual(outcome.result.output, {
      tracks: [
        { audioId: `${id}-audio-0`, title: 'Fake Song 1', duration: 1, lyrics: '[Verse]\nLyrics about a rainy day in Lisbon', tags: 'synthwave, dreamy', coverImageUrls: [`${fake.url}/files/${id}/cover-0.jpg`] },
        { audioId: `${id}-audio-1`, title: 'Fake Song 2', duration: 2, lyrics: '[Verse]\nLyrics about a rainy day in Lisbon', tags: 'synthwave, dreamy', coverImageUrls: [`${fake.url}/files/${id}/cover-1.jpg`] },
      ],
    });
    assert.ok(isMp3((await download(outcome.result.files[0]?.url ?? '')).body));
  });

  test('custom mode sends lyrics, style and title', async () => {
    const p = kie();
    const j = job('suno', { custom: true, prompt: '[Verse] hello', tags: 'jazz, piano', title: 'Hello', mv: 'v5.5', vocalGender: 'Female', styleWeight: 0.5 });
    const submitted = await p.submit(j);
    assert.equal(submitted.kind, 'accepted');
    assert.deepEqual(fake.requestsTo('POST', '/api/v1/generate').at(-1)?.json, {
      customMode: true,
      instrumental: false,
      prompt: '[Verse] hello',
      style: 'jazz, piano',
      title: 'Hello',
      vocalGender: 'f',
      styleWeight: 0.5,
      model: 'V5_5',
      callBackUrl: j.callbackUrl,
    });
  });

  test('lyrics are a data action: output only, no files', async () => {
    const p = kie();
    const j = job('suno', { action: 'lyrics', prompt: 'the sea' });
    const submitted = await p.submit(j);
    assert.ok(submitted.kind === 'accepted');
    assert.deepEqual(fake.requestsTo('POST', '/api/v1/lyrics').at(-1)?.json, { prompt: 'the sea', callBackUrl: j.callbackUrl });
    const { outcome } = await pollUntilDone(p, j, submitted.upstreamId);
    assert.deepEqual(outcome, {
      kind: 'completed',
      result: {
        files: [],
        output: {
          lyrics: [
            { title: 'Draft One', text: '[Verse]\nthe sea one' },
            { title: 'Draft Two', text: '[Verse]\nthe sea two' },
          ],
        },
      },
    });
  });

  test('follow-ups use the parent kie task and its first track', async () => {
    const p = kie();
    const parents = { task_song: { upstreamId: 'kie_song_9', output: { tracks: [{ audioId: 'aud_first' }, { audioId: 'aud_second' }] } } };
    const extend = job('suno', { action: 'extend', sourceTaskId: 'task_song', continueAt: 30, gptDescriptionPrompt: 'go on' }, { parents });
    assert.equal((await p.submit(extend)).kind, 'accepted');
    assert.deepEqual(fake.requestsTo('POST', '/api/v1/generate/extend').at(-1)?.json, {
      defaultParamFlag: false,
      instrumental: false,
      prompt: 'go on',
      model: 'V5',
      taskId: 'kie_song_9',
      audioId: 'aud_first',
      continueAt: 30,
      callBackUrl: extend.callbackUrl,
    });
    const wav = job('suno', { action: 'wav', sourceTaskId: 'task_song', audioId: 'aud_second' }, { parents });
    const submitted = await p.submit(wav);
    assert.ok(submitted.kind === 'accepted');
    assert.deepEqual(fake.requestsTo('POST', '/api/v1/wav/generate').at(-1)?.json, { taskId: 'kie_song_9', audioId: 'aud_second', callBackUrl: wav.callbackUrl });
    const { outcome } = await pollUntilDone(p, wav, submitted.upstreamId);
    assert.deepEqual(outcome, { kind: 'completed', result: { files: [{ fileType: 'music', url: `${fake.url}/files/${submitted.upstreamId}/0.wav`, contentType: 'audio/wav' }], output: null } });
  });

  test('stems-all gives twelve stems named in file order', async () => {
    const p = kie();
    const j = job('suno', { action: 'stems-all', sourceTaskId: 'task_song' }, { parents: { task_song: { upstreamId: 'kie_song_9', output: { tracks: [{ audioId: 'aud_first' }] } } } });
    const submitted = await p.submit(j);
    assert.ok(submitted.kind === 'accepted');
    assert.equal(fake.lastJson('POST', '/api/v1/vocal-removal/generate').type, 'split_stem');
    const { outcome } = await pollUntilDone(p, j, submitted.upstreamId);
    assert.ok(outcome.kind === 'completed');
    assert.equal(outcome.result.files.length, 12);
    assert.deepEqual(outcome.result.output?.stems, ['lead_vocal', 'backing_vocals', 'drum_kit', 'bass', 'electric_guitar', 'piano', 'percussion', 'strings', 'synth', 'fx', 'brass', 'woodwinds']);
  });

  test('a synchronous action completes at submit', async () => {
    const outcome = await kie().submit(job('suno', { action: 'boost-style', tags: 'lofi' }));
    assert.deepEqual(outcome, { kind: 'completed', upstreamId: outcome.kind === 'completed' ? outcome.upstreamId : '', result: { files: [], output: { style: 'boosted: lofi' } } });
  });

  test('timestamped lyrics and a persona answer synchronously from the parent task', async () => {
    const p = kie();
    const parents = { task_song: { upstreamId: 'kie_song_9', output: { tracks: [{ audioId: 'aud_first' }] } } };
    const aligned = await p.submit(job('suno', { action: 'timestamped-lyrics', sourceTaskId: 'task_song' }, { parents }));
    assert.deepEqual(aligned, {
      kind: 'completed',
      result: { files: [], output: { alignedWords: [{ word: 'la', startS: 0.1, endS: 0.4, success: true }], waveformData: [0.1, 0.5], hootCer: 0.2 } },
    });
    assert.deepEqual(fake.lastJson('POST', '/api/v1/generate/get-timestamped-lyrics'), { taskId: 'kie_song_9', audioId: 'aud_first' });
    const persona = await p.submit(job('suno', { action: 'voice', name: 'Ava', sourceTaskId: 'task_song', voxAudioId: 'vox_1', startS: 1, endS: 9 }, { parents }));
    assert.deepEqual(persona, { kind: 'completed', result: { files: [], output: { personaId: 'persona_vox_1', name: 'Ava', description: 'Ava' } } });
  });

  test('a music video is a video file; the Suno callback names the task by task_id', async () => {
    const p = kie();
    const j = job('suno', { action: 'music-video', sourceTaskId: 'task_song', author: 'Ava' }, { parents: { task_song: { upstreamId: 'kie_song_9', output: null } } });
    const submitted = await p.submit(j);
    assert.ok(submitted.kind === 'accepted');
    assert.deepEqual(fake.lastJson('POST', '/api/v1/mp4/generate'), { taskId: 'kie_song_9', author: 'Ava', callBackUrl: j.callbackUrl });
    const { outcome } = await pollUntilDone(p, j, submitted.upstreamId);
    assert.deepEqual(outcome, { kind: 'completed', result: { files: [{ fileType: 'video', url: `${fake.url}/files/${submitted.upstreamId}/0.mp4` }], output: null } });
    const song = job('suno', { gptDescriptionPrompt: 'callback me' });
    const s2 = await p.submit(song);
    assert.ok(s2.kind === 'accepted');
    const [hook] = await rx.waitFor(`/callbacks/${song.attemptId}`);
    assert.ok(hook);
    assert.equal((JSON.parse(hook.rawBody.toString()) as { data: { callbackType: string } }).data.callbackType, 'complete');
    assert.deepEqual(p.parseCallback?.({ headers: hook.headers, rawBody: hook.rawBody }), { upstreamId: s2.upstreamId });
  });

  test('an action kie does not have fails as unsupported (retryable) without a request', async () => {
    const before = fake.requests.length;
    const outcome = await kie().submit(job('suno', { action: 'sound', prompt: 'a door slam' }));
    assert.deepEqual(outcome, { kind: 'failed', error: { message: 'kie has no Suno action sound', retryable: true, code: 'unsupported' } });
    assert.equal(fake.requests.length, before);
  });

  test('a follow-up whose parent is not on this provider is not retryable', async () => {
    const outcome = await kie().submit(job('suno', { action: 'wav', sourceTaskId: 'task_elsewhere' }));
    assert.equal(outcome.kind, 'failed');
    assert.ok(outcome.kind === 'failed');
    assert.equal(outcome.error.retryable, false);
    assert.equal(outcome.error.code, 'not_found');
  });

  test('a sensitive-word failure is a content-policy error, not retryable', async () => {
    const p = kie();
    fake.script({ acceptThenFail: { code: 'SENSITIVE_WORD_ERROR', message: 'lyrics contain a banned word' }, completeAfterMs: 10 });
    const j = job('suno', { gptDescriptionPrompt: 'rude words' });
    const submitted = await p.submit(j);
    assert.ok(submitted.kind === 'accepted');
    const { outcome } = await pollUntilDone(p, j, submitted.upstreamId);
    assert.deepEqual(outcome, { kind: 'failed', error: { message: 'kie task failed (501): lyrics contain a banned word', retryable: false, code: 'content_policy' } });
  });
});

describe('kie errors', () => {
  const cases: Array<[string, number, unknown, boolean, string]> = [
    ['credits (402 in a 200 body)', 200, { code: 402, msg: 'Credits insufficient' }, true, 'credits'],
    ['validation (422 in a 200 body)', 200, { code: 422, msg: 'aspect_ratio is invalid' }, false, 'invalid_request'],
    ['rate limit', 200, { code: 429, msg: 'Too many requests' }, true, 'rate_limited'],
    ['maintenance (455)', 200, { code: 455, msg: 'Service unavailable' }, true, 'unavailable'],
    ['server error (500)', 200, { code: 500, msg: 'Server error' }, true, 'unavailable'],
    ['HTTP 503 without a kie body', 503, { error: 'upstream down' }, true, 'unavailable'],
  ];
  for (const [name, status, body, retryable, code] of cases) {
    test(`submit refused: ${name}`, async () => {
      fake.script({ failOnSubmit: { status, body } });
      const outcome = await kie().submit(job('z-image-turbo', { prompt: 'p' }));
      assert.equal(outcome.kind, 'failed');
      assert.ok(outcome.kind === 'failed');
      assert.equal(outcome.error.retryable, retryable);
      assert.equal(outcome.error.code, code);
      assert.equal(outcome.error.status, status === 200 ? (body as { code: number }).code : status);
    });
  }

  test('a wrong key is an auth error, retryable elsewhere', async () => {
    const p = createMediaProvider('kie-bad', { type: 'kie', baseUrl: fake.url, apiKey: 'wrong', timeoutMs: 2_000, concurrency: 1, options: {} });
    providers.push(p);
    const outcome = await p.submit(job('z-image-turbo', { prompt: 'p' }));
    assert.deepEqual(outcome, { kind: 'failed', error: { message: 'kie submit: 401 You do not have access permissions', retryable: true, status: 401, code: 'auth' } });
  });

  test('the Suno API says 429 for insufficient credits', async () => {
    fake.script({ failOnSubmit: { status: 200, body: { code: 429, msg: 'Insufficient credits' } } });
    const outcome = await kie().submit(job('suno', { gptDescriptionPrompt: 'x' }));
    assert.ok(outcome.kind === 'failed');
    assert.equal(outcome.error.code, 'credits');
    assert.equal(outcome.error.retryable, true);
  });

  test('a task that fails after acceptance: retryable unless its code blames the input', async () => {
    const p = kie();
    fake.script({ acceptThenFail: { code: 500, message: 'internal error' }, completeAfterMs: 10 });
    const a = job('z-image-turbo', { prompt: 'p' });
    const sa = await p.submit(a);
    assert.ok(sa.kind === 'accepted');
    assert.deepEqual((await pollUntilDone(p, a, sa.upstreamId)).outcome, { kind: 'failed', error: { message: 'kie task failed (500): internal error', retryable: true, code: 'generation_failed' } });
    fake.script({ acceptThenFail: { code: 400, message: 'prompt flagged' }, completeAfterMs: 10 });
    const b = job('z-image-turbo', { prompt: 'p' });
    const sb = await p.submit(b);
    assert.ok(sb.kind === 'accepted');
    assert.deepEqual((await pollUntilDone(p, b, sb.upstreamId)).outcome, { kind: 'failed', error: { message: 'kie task failed (400): prompt flagged', retryable: false, code: 'content_policy' } });
  });

  test('a refused connection is a failed (retryable) submit, not an unknown one', async () => {
    const p = createMediaProvider('kie-down', { type: 'kie', baseUrl: 'http://127.0.0.1:1', apiKey: 'k', timeoutMs: 1_000, concurrency: 1, options: { retryPollMs: 77 } });
    providers.push(p);
    const j = job('z-image-turbo', { prompt: 'p' });
    const outcome = await p.submit(j);
    assert.equal(outcome.kind, 'failed');
    assert.ok(outcome.kind === 'failed');
    assert.equal(outcome.error.code, 'network');
    assert.equal(outcome.error.retryable, true);
    // A poll that cannot get through says "later", never "failed".
    assert.deepEqual(await p.poll(j, 'task_x'), { kind: 'pending', pollAfterMs: 77 });
  });
});

describe('kie unknown outcomes and callbacks', () => {
  test('a hung submit is unknown; reconcile cannot tell; the callback names the task, which then completes', async () => {
    const p = kie({}, fake, 250);
    fake.script({ hangOnSubmit: true, completeAfterMs: 40 });
    const j = job('z-image-turbo', { prompt: 'hang on' });
    const started = Date.now();
    const outcome = await p.submit(j);
    assert.equal(outcome.kind, 'unknown');
    assert.ok(outcome.kind === 'unknown');
    assert.equal(outcome.error.code, 'timeout');
    assert.ok(Date.now() - started < 2_000);
    assert.deepEqual(await p.reconcile(j), { kind: 'unknowable' });
    const [callback] = await rx.waitFor(`/callbacks/${j.attemptId}`);
    assert.ok(callback);
    const created = [...fake.jobs.values()].find((k) => k.callbackUrl === j.callbackUrl);
    const notice = p.parseCallback?.({ headers: callback.headers, rawBody: callback.rawBody });
    assert.deepEqual(notice, { upstreamId: created?.id });
    const { outcome: polled } = await pollUntilDone(kie(), j, notice?.upstreamId ?? '');
    assert.equal(polled.kind, 'completed');
  });

  test('signed callbacks: the right key verifies, a wrong key or a stale timestamp is refused', async () => {
    const p = kie({ webhookHmacKey: 'kie-hmac-secret' }, signedFake);
    const j = job('z-image-turbo', { prompt: 'signed' });
    const submitted = await p.submit(j);
    assert.ok(submitted.kind === 'accepted');
    const [callback] = await rx.waitFor(`/callbacks/${j.attemptId}`);
    assert.ok(callback);
    assert.deepEqual(p.parseCallback?.({ headers: callback.headers, rawBody: callback.rawBody }), { upstreamId: submitted.upstreamId });
    const wrongKey = kie({ webhookHmacKey: 'another-secret' }, signedFake);
    assert.equal(wrongKey.parseCallback?.({ headers: callback.headers, rawBody: callback.rawBody }), undefined);
    const stale = { ...callback.headers, 'x-webhook-timestamp': String(Math.floor(Date.now() / 1000) - 3_600) };
    assert.equal(p.parseCallback?.({ headers: stale, rawBody: callback.rawBody }), undefined);
    const forged = Buffer.from(JSON.stringify({ code: 200, data: { taskId: 'task_forged', state: 'success' } }));
    assert.equal(p.parseCallback?.({ headers: callback.headers, rawBody: forged }), undefined);
    assert.equal(p.parseCallback?.({ headers: {}, rawBody: Buffer.from('not json') }), undefined);
  });

  test('a late success is observable: failure first, success later, two callbacks', async () => {
    const p = kie();
    fake.script({ completeAfterMs: 20, lateSuccessAfterMs: 400 });
    const j = job('z-image-turbo', { prompt: 'late' });
    const submitted = await p.submit(j);
    assert.ok(submitted.kind === 'accepted');
    const first = await pollUntilDone(p, j, submitted.upstreamId);
    assert.equal(first.outcome.kind, 'failed');
    await sleep(420);
    const second = await p.poll(j, submitted.upstreamId);
    assert.equal(second.kind, 'completed');
    const callbacks = await rx.waitFor(`/callbacks/${j.attemptId}`, 2);
    const codes = callbacks.map((c) => (JSON.parse(c.rawBody.toString()) as { code: number }).code);
    assert.deepEqual(codes, [501, 200]);
  });
});
