import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { GuardedHttpClient } from '../../../src/adapters/outbound/guarded-http-client.ts';
import { googleError, operationError, retryAfterMs } from '../../../src/providers/media/google/google-errors.ts';
import { readImageAnswer } from '../../../src/providers/media/google/google-image.mapping.ts';
import { BlobJson, blobData, parseBlobJson } from '../../../src/providers/media/google/google-json.ts';
import { googleModel, googleRefusal } from '../../../src/providers/media/google/google-models.ts';
import { readOperation } from '../../../src/providers/media/google/google-veo.mapping.ts';
import type { MediaJob, MediaProvider } from '../../../src/providers/media/media-provider.ts';
import { createMediaProvider } from '../../../src/providers/registries/media.registry.ts';
import { GENERATE_CONTENT, GOOGLE_ERRORS, PREDICT_LONG_RUNNING } from '../../fakes/media/google-documents.ts';
import { type GoogleFake, startGoogleFake } from '../../fakes/media/google.fake.ts';
import { isMp4, makeJob, PNG_MAGIC, pollUntilDone } from './helpers.ts';

let fake: GoogleFake;
const providers: MediaProvider[] = [];
const guarded = new GuardedHttpClient({ allowPrivate: true });

function google(options: Record<string, unknown> = {}, timeoutMs = 2_000, apiKey = fake.apiKey): MediaProvider {
  const p = createMediaProvider(
    'google-main',
    { type: 'google', baseUrl: fake.url, apiKey, timeoutMs, concurrency: 4, options: { pollIntervalMs: 10, retryPollMs: 25, imageTimeoutMs: timeoutMs, ...options } },
    { guardedHttp: guarded },
  );
  providers.push(p);
  return p;
}

function job(model: string, input: Record<string, unknown>, upstreamModel = model): MediaJob {
  return makeJob(model, input, { upstreamModel });
}

function response(status: number, body: unknown, headers: Record<string, string> = {}) {
  return { status, headers, body: Buffer.from(JSON.stringify(body)) };
}

/** POSTs a body to the fake as is, to see what Google's document makes of it. */
async function raw(path: string, body: unknown): Promise<{ status: number; json: { error?: { code: number; status: string; message: string } } }> {
  const res = await fetch(`${fake.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-goog-api-key': fake.apiKey }, body: JSON.stringify(body) });
  return { status: res.status, json: (await res.json()) as { error?: { code: number; status: string; message: string } } };
}

before(async () => {
  fake = await startGoogleFake();
});

after(async () => {
  await Promise.all([...providers.map((p) => p.close?.()), fake.close()]);
});

describe('Google fixtures', () => {
  test('every document names its sources and the day they were read', () => {
    for (const doc of [GENERATE_CONTENT, PREDICT_LONG_RUNNING]) {
      assert.ok(doc.source.length > 0);
      assert.equal(doc.retrieved, '2026-11-25');
    }
    assert.equal(GOOGLE_ERRORS.statuses.RESOURCE_EXHAUSTED, 429);
  });
});

describe('Google strict fake (the documents, not our mapping)', () => {
  const ok = { contents: [{ role: 'user', parts: [{ text: 'a fox' }] }], generationConfig: { responseModalities: ['IMAGE'], imageConfig: { aspectRatio: '1:1', imageSize: '1K' } } };

  test('generateContent: an unknown or misspelt field, a missing required one and a value outside the enum are 400 INVALID_ARGUMENT', async () => {
    assert.equal((await raw('/v1beta/models/gemini-3.1-flash-image:generateContent', ok)).status, 200);
    const cases: unknown[] = [
      { ...ok, generationConfig: { responseModalities: ['IMAGE'], imageConfig: { aspect_ratio: '1:1' } } },
      { ...ok, generationConfig: { responseModalities: ['IMAGE'], imageConfig: { aspectRatio: '1:1', imageSize: '3K' } } },
      { ...ok, generationConfig: { responseModalities: ['PICTURE'] } },
      { ...ok, generationConfig: { imageConfig: { personGeneration: 'ALLOW_ALL' } } },
      { generationConfig: ok.generationConfig },
      { ...ok, extra: true },
    ];
    for (const body of cases) {
      const res = await raw('/v1beta/models/gemini-3.1-flash-image:generateContent', body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.json.error?.code, 400);
      assert.equal(res.json.error?.status, 'INVALID_ARGUMENT');
    }
  });

  test('generateContent: per model, Pro has no 512 and no 1:4, 4:1, 1:8, 8:1; an unknown model is 404', async () => {
    const pro = (imageConfig: Record<string, string>) => raw('/v1beta/models/gemini-3-pro-image:generateContent', { ...ok, generationConfig: { responseModalities: ['IMAGE'], imageConfig } });
    assert.equal((await pro({ aspectRatio: '21:9', imageSize: '4K' })).status, 200);
    assert.equal((await pro({ aspectRatio: '1:1', imageSize: '512' })).status, 400);
    assert.equal((await pro({ aspectRatio: '1:8', imageSize: '1K' })).status, 400);
    const flash = await raw('/v1beta/models/gemini-3.1-flash-image:generateContent', { ...ok, generationConfig: { responseModalities: ['IMAGE'], imageConfig: { aspectRatio: '8:1', imageSize: '512' } } });
    assert.equal(flash.status, 200);
    const unknown = await raw('/v1beta/models/gemini-9-image:generateContent', ok);
    assert.deepEqual([unknown.status, unknown.json.error?.status], [404, 'NOT_FOUND']);
  });

  test('predictLongRunning: fields the model does not take, durations, resolutions and image encodings outside the documents are refused', async () => {
    const png = fake.assets.png.toString('base64');
    const base = { instances: [{ prompt: 'a fox' }], parameters: { aspectRatio: '16:9', resolution: '1080p', durationSeconds: 8 } };
    const path = (m: string) => `/v1beta/models/${m}:predictLongRunning`;
    assert.equal((await raw(path('veo-3.1-fast-generate-preview'), base)).status, 200);
    const refused: Array<[string, unknown]> = [
      ['veo-3.1-fast-generate-preview', { ...base, parameters: { ...base.parameters, generateAudio: true } }],
      ['veo-3.1-fast-generate-preview', { ...base, parameters: { ...base.parameters, seed: 7 } }],
      ['veo-3.1-fast-generate-preview', { ...base, parameters: { ...base.parameters, durationSeconds: 4 } }],
      ['veo-3.1-fast-generate-preview', { ...base, parameters: { ...base.parameters, aspectRatio: '1:1' } }],
      ['veo-3.1-lite-generate-preview', { ...base, parameters: { ...base.parameters, resolution: '4k' } }],
      ['veo-3.1-lite-generate-preview', { instances: [{ prompt: 'p', referenceImages: [{ image: { bytesBase64Encoded: png, mimeType: 'image/png' }, referenceType: 'asset' }] }] }],
      ['veo-3.1-generate-preview', { instances: [{ prompt: 'p', image: { inlineData: { mimeType: 'image/png', data: png } } }] }],
      ['veo-3.1-generate-preview', { instances: [{ prompt: 'p', lastFrame: { bytesBase64Encoded: png, mimeType: 'image/png' } }] }],
      ['veo-3.1-generate-preview', { instances: [{ prompt: 'p', image: { bytesBase64Encoded: png, mimeType: 'image/jpeg' } }] }],
      ['veo-3.1-generate-preview', { instances: [{ prompt: 'p' }], parameters: { duration_seconds: 8 } }],
    ];
    for (const [model, body] of refused) {
      const res = await raw(path(model), body);
      assert.deepEqual([res.status, res.json.error?.status], [400, 'INVALID_ARGUMENT'], `${model} ${JSON.stringify(body).slice(0, 200)}`);
    }
  });
});

describe('Google inline images in JSON (kept out of JSON.stringify and JSON.parse)', () => {
  test('a body with blobs serialises to the same JSON as JSON.stringify would, and a prompt cannot forge a blob', async () => {
    const image = Buffer.alloc(200_000, 7);
    const json = new BlobJson();
    const value = { contents: [{ parts: [{ text: '@@not-a-blob:0@@ "quoted" ünïcode' }, { inlineData: { mimeType: 'image/png', data: json.blob(image) } }] }] };
    const body = await json.serialize(value);
    const expected = { contents: [{ parts: [{ text: '@@not-a-blob:0@@ "quoted" ünïcode' }, { inlineData: { mimeType: 'image/png', data: image.toString('base64') } }] }] };
    assert.deepEqual(JSON.parse(body.toString('utf8')), expected);
  });

  test('an answer is parsed with its long data strings cut out and decoded apart; short ones and other members stay as they are', async () => {
    const big = Buffer.alloc(50_000, 3);
    const small = Buffer.from('tiny');
    const pretty = Buffer.from(JSON.stringify({ candidates: [{ content: { parts: [{ text: 'a "data": "x" in text' }, { inlineData: { mimeType: 'image/png', data: big.toString('base64') } }, { inlineData: { mimeType: 'image/png', data: small.toString('base64') } }] } }] }, null, 2));
    const parsed = await parseBlobJson(pretty);
    assert.ok(parsed);
    assert.equal(parsed.blobs.length, 1);
    const parts = (parsed.json as { candidates: Array<{ content: { parts: Array<{ text?: string; inlineData?: { data: string } }> } }> }).candidates[0]?.content.parts ?? [];
    assert.equal(parts[0]?.text, 'a "data": "x" in text');
    assert.ok(blobData(parts[1]?.inlineData?.data ?? '', parsed.blobs)?.equals(big));
    assert.ok(blobData(parts[2]?.inlineData?.data ?? '', parsed.blobs)?.equals(small));
    assert.equal(await parseBlobJson(Buffer.from('not json')), undefined);
  });
});

describe('Google model names and refusals', () => {
  test('our ids map to Google ids; a Google id is sent verbatim', () => {
    assert.equal(googleModel('nano-banana-2'), 'gemini-3.1-flash-image');
    assert.equal(googleModel('nano-banana-pro'), 'gemini-3-pro-image');
    assert.equal(googleModel('veo-3.1-quality'), 'veo-3.1-generate-preview');
    assert.equal(googleModel('veo-3.1-fast'), 'veo-3.1-fast-generate-preview');
    assert.equal(googleModel('veo-3.1-lite'), 'veo-3.1-lite-generate-preview');
    assert.equal(googleModel('gemini-3.1-flash-image-preview'), 'gemini-3.1-flash-image-preview');
  });

  test('an option Google does not document for the model is refused before dispatch, naming the field', () => {
    const refusal = (model: string, input: Record<string, unknown>, upstream = model) => {
      const j = job(model, input, upstream);
      return googleRefusal({ model: j.model, upstreamModel: j.upstreamModel, family: j.family, input: j.input })?.field;
    };
    assert.equal(refusal('nano-banana-pro', { prompt: 'p', resolution: '512px' }), 'resolution');
    assert.equal(refusal('nano-banana-pro', { prompt: 'p', size: '4:1' }), 'size');
    assert.equal(refusal('nano-banana-pro', { prompt: 'p', size: '21:9', resolution: '4K' }), undefined);
    assert.equal(refusal('nano-banana-2', { prompt: 'p', size: '1:8', resolution: '512px' }), undefined);
    assert.equal(refusal('nano-banana-2', { prompt: 'p', urls: Array.from({ length: 15 }, (_, i) => `https://example.com/${i}.png`) }), 'urls');
    assert.equal(refusal('veo-3.1-lite', { prompt: 'p', resolution: '4k' }), 'resolution');
    assert.equal(refusal('veo-3.1-lite', { prompt: 'p', resolution: '1080p' }), undefined);
    assert.equal(refusal('veo-3.1-fast', { prompt: 'p', resolution: '4k', urls: ['https://example.com/a.png'], generationType: 'reference' }), undefined);
    // A Google id the operator names is judged by what that model takes.
    assert.equal(refusal('nano-banana-2', { prompt: 'p', resolution: '512px' }, 'gemini-3-pro-image'), 'resolution');
  });
});

describe('Google images (generateContent)', () => {
  test('the prompt and image config go out as Google documents them; the image comes back inline', async () => {
    const outcome = await google().submit(job('nano-banana-2', { prompt: 'a tiny robot', size: '21:9', resolution: '512px' }));
    assert.equal(outcome.kind, 'completed');
    assert.ok(outcome.kind === 'completed');
    const file = outcome.result.files[0];
    assert.equal(outcome.result.files.length, 1);
    assert.equal(file?.fileType, 'image');
    assert.equal(file?.contentType, 'image/png');
    assert.ok(file?.data?.subarray(0, 4).equals(PNG_MAGIC));
    const sent = fake.requestsTo('POST', '/v1beta/models/gemini-3.1-flash-image:generateContent').at(-1);
    assert.equal(sent?.headers['x-goog-api-key'], fake.apiKey);
    assert.equal(sent?.headers.authorization, undefined);
    assert.deepEqual(sent?.json, {
      contents: [{ role: 'user', parts: [{ text: 'a tiny robot' }] }],
      generationConfig: { responseModalities: ['IMAGE'], imageConfig: { aspectRatio: '21:9', imageSize: '512' } },
    });
  });

  test('reference images are fetched through the guarded client and sent inline with the type their bytes show', async () => {
    const url = `${fake.url}/files/ref/0.png`;
    const outcome = await google().submit(job('nano-banana-pro', { prompt: 'make it blue', urls: [url, url], resolution: '2K', size: '4:5' }));
    assert.equal(outcome.kind, 'completed');
    const body = fake.callsTo('generateContent').at(-1);
    assert.equal(body?.model, 'gemini-3-pro-image');
    const parts = ((body?.body.contents ?? []) as Array<{ parts: Array<Record<string, unknown>> }>)[0]?.parts ?? [];
    assert.deepEqual(parts[0], { text: 'make it blue' });
    assert.deepEqual(parts.slice(1), [
      { inlineData: { mimeType: 'image/png', data: fake.assets.png.toString('base64') } },
      { inlineData: { mimeType: 'image/png', data: fake.assets.png.toString('base64') } },
    ]);
    assert.deepEqual(body?.body.generationConfig, { responseModalities: ['IMAGE'], imageConfig: { aspectRatio: '4:5', imageSize: '2K' } });
  });

  test('a reference the guarded client refuses is the request’s fault: nothing is sent', async () => {
    const strict = createMediaProvider('g', { type: 'google', baseUrl: fake.url, apiKey: fake.apiKey, timeoutMs: 2_000, concurrency: 1, options: {} }, { guardedHttp: new GuardedHttpClient({ allowPrivate: false }) });
    providers.push(strict);
    const before = fake.callsTo('generateContent').length;
    const outcome = await strict.submit(job('nano-banana-2', { prompt: 'p', urls: [`${fake.url}/files/ref/0.png`] }));
    assert.ok(outcome.kind === 'failed');
    assert.deepEqual([outcome.error.retryable, outcome.error.code], [false, 'invalid_request']);
    assert.match(outcome.error.message, /^input\.urls\[0\]: /u);
    assert.equal(fake.callsTo('generateContent').length, before);
  });

  test('a refused option is `unsupported` at submit, without a request', async () => {
    const before = fake.requests.length;
    const outcome = await google().submit(job('nano-banana-pro', { prompt: 'p', resolution: '512px' }));
    assert.ok(outcome.kind === 'failed');
    assert.deepEqual([outcome.error.retryable, outcome.error.code], [true, 'unsupported']);
    assert.match(outcome.error.message, /input\.resolution/u);
    assert.equal(fake.requests.length, before);
  });

  test('safety blocks are content_policy (not retryable); an answer without an image is a retryable generation failure', async () => {
    fake.script({ acceptThenFail: { code: 'prompt' } });
    const prompt = await google().submit(job('nano-banana-2', { prompt: 'p' }));
    assert.ok(prompt.kind === 'failed');
    assert.deepEqual([prompt.error.retryable, prompt.error.code], [false, 'content_policy']);
    fake.script({ acceptThenFail: { code: 'IMAGE_SAFETY' } });
    const image = await google().submit(job('nano-banana-2', { prompt: 'p' }));
    assert.ok(image.kind === 'failed');
    assert.deepEqual([image.error.retryable, image.error.code], [false, 'content_policy']);
    fake.script({ acceptThenFail: { code: 'NO_IMAGE' } });
    const none = await google().submit(job('nano-banana-2', { prompt: 'p' }));
    assert.ok(none.kind === 'failed');
    assert.deepEqual([none.error.retryable, none.error.code], [true, 'generation_failed']);
  });

  test('the recorded answers read as documented: thought images skipped, no more images than asked', () => {
    const success = GENERATE_CONTENT.responses.success?.body as { candidates: Array<{ content: { parts: unknown[] } }> };
    const data = Buffer.from('png').toString('base64');
    const withThought = { candidates: [{ content: { parts: [{ inlineData: { mimeType: 'image/png', data }, thought: true }, { inlineData: { mimeType: 'image/jpeg', data } }, { inlineData: { mimeType: 'image/png', data } }] }, finishReason: 'STOP' }] };
    const read = readImageAnswer(withThought, { count: 1 });
    assert.ok(read.kind === 'completed');
    assert.deepEqual(read.files.map((f) => f.contentType), ['image/jpeg']);
    assert.equal(readImageAnswer(success, { count: 1 }).kind, 'completed');
    const blocked = readImageAnswer(GENERATE_CONTENT.responses.promptBlocked?.body, { count: 1 });
    assert.ok(blocked.kind === 'failed' && blocked.error.code === 'content_policy');
    const unsafe = readImageAnswer(GENERATE_CONTENT.responses.imageSafety?.body, { count: 1 });
    assert.ok(unsafe.kind === 'failed' && unsafe.error.code === 'content_policy');
  });

  test('a synchronous call that times out after sending is unknown, and cannot be looked up', async () => {
    fake.script({ hangOnSubmit: true });
    const p = google({}, 300);
    const j = job('nano-banana-2', { prompt: 'p' });
    const outcome = await p.submit(j);
    assert.equal(outcome.kind, 'unknown');
    assert.deepEqual(await p.reconcile(j), { kind: 'unknowable' });
  });
});

describe('Google errors', () => {
  const e = (name: string) => GOOGLE_ERRORS.responses[name];

  test('the documented statuses: request faults are final, our key, quota and capacity are retryable', () => {
    const cases: Array<[number, unknown, boolean, string]> = [
      [400, e('unknownField'), false, 'invalid_request'],
      [400, e('apiKeyInvalid'), true, 'auth'],
      [400, e('failedPrecondition'), true, 'auth'],
      [403, e('permissionDenied'), true, 'auth'],
      [404, e('notFound'), true, 'not_found'],
      [429, e('rateLimited'), true, 'rate_limited'],
      [500, { error: { code: 500, message: 'An internal error has occurred.', status: 'INTERNAL' } }, true, 'unavailable'],
      [503, e('unavailable'), true, 'unavailable'],
      [504, { error: { code: 504, message: 'Deadline exceeded.', status: 'DEADLINE_EXCEEDED' } }, true, 'unavailable'],
    ];
    for (const [status, body, retryable, code] of cases) {
      const error = googleError(response(status, body), 'generateContent');
      assert.deepEqual([error.retryable, error.code, error.status], [retryable, code, status], JSON.stringify(body));
    }
    assert.match(googleError(response(429, e('rateLimited')), 'x').message, /RESOURCE_EXHAUSTED .*\(retry after 37 s\)$/u);
  });

  test('Retry-After (seconds or a date) wins over RetryInfo', () => {
    assert.equal(retryAfterMs(response(429, e('rateLimited'))), 37_000);
    assert.equal(retryAfterMs(response(429, e('rateLimited'), { 'retry-after': '5' })), 5_000);
    const now = Date.parse('2026-11-25T10:00:00Z');
    assert.equal(retryAfterMs(response(429, {}, { 'retry-after': 'Wed, 25 Nov 2026 10:00:30 GMT' }), now), 30_000);
    assert.equal(retryAfterMs(response(429, {})), undefined);
  });

  test('a 429 at submit is retryable (the reserve serves it); while polling it waits as long as Google asks', async () => {
    fake.script({ failOnSubmit: { status: 429, body: e('rateLimited') } });
    const limited = await google().submit(job('nano-banana-2', { prompt: 'p' }));
    assert.ok(limited.kind === 'failed');
    assert.deepEqual([limited.error.retryable, limited.error.code], [true, 'rate_limited']);
    const wrongKey = await google({}, 2_000, 'not-the-key').submit(job('nano-banana-2', { prompt: 'p' }));
    assert.ok(wrongKey.kind === 'failed');
    assert.deepEqual([wrongKey.error.retryable, wrongKey.error.code], [true, 'auth']);
  });

  test('failed operations: invalid arguments and policy words are final, quota and internal errors retryable', () => {
    assert.deepEqual(pick(operationError({ code: 3, message: 'The prompt could not be submitted: it violates our Responsible AI practices.' })), [false, 'content_policy']);
    assert.deepEqual(pick(operationError({ code: 3, message: 'Unsupported image dimensions.' })), [false, 'invalid_request']);
    assert.deepEqual(pick(operationError({ code: 8, message: 'Quota exceeded.' })), [true, 'rate_limited']);
    assert.deepEqual(pick(operationError({ code: 13, message: 'internal' })), [true, 'generation_failed']);
    assert.deepEqual(pick(operationError({ code: 7, message: 'denied' })), [true, 'auth']);
  });
});

function pick(error: { retryable: boolean; code?: string }): [boolean, string | undefined] {
  return [error.retryable, error.code];
}

describe('Google videos (predictLongRunning and operations)', () => {
  test('frames: the body @google/genai writes, the operation polled to done, the MP4 downloaded with the key on the API origin only', async () => {
    const p = google();
    const url = `${fake.url}/files/ref/0.png`;
    const j = job('veo-3.1-fast', { prompt: 'a fox runs', aspectRatio: '9:16', resolution: '4k', urls: [url, url] });
    const submitted = await p.submit(j);
    assert.ok(submitted.kind === 'accepted');
    assert.match(submitted.upstreamId, /^models\/veo-3\.1-fast-generate-preview\/operations\/op/u);
    const png = { bytesBase64Encoded: fake.assets.png.toString('base64'), mimeType: 'image/png' };
    assert.deepEqual(fake.callsTo('predictLongRunning').at(-1), {
      model: 'veo-3.1-fast-generate-preview',
      body: { instances: [{ prompt: 'a fox runs', image: png, lastFrame: png }], parameters: { aspectRatio: '9:16', resolution: '4k', durationSeconds: 8 } },
    });
    const { outcome, polls } = await pollUntilDone(p, j, submitted.upstreamId);
    assert.ok(polls >= 1);
    assert.ok(outcome.kind === 'completed');
    const file = outcome.result.files[0];
    assert.equal(file?.fileType, 'video');
    assert.equal(file?.contentType, 'video/mp4');
    assert.ok(file?.data && isMp4(file.data));
    const download = fake.requests.filter((r) => r.path.includes(':download')).at(-1);
    assert.equal(download?.headers['x-goog-api-key'], fake.apiKey);
    const stored = fake.requests.filter((r) => r.path.startsWith('/files/op')).at(-1);
    assert.ok(stored, 'the redirect was followed');
    assert.equal(stored.headers['x-goog-api-key'], undefined, 'our key never leaves the API origin');
  });

  test('references: up to 3 asset images, 8 s; Lite takes 720p and 1080p only', async () => {
    const url = `${fake.url}/files/ref/0.png`;
    const submitted = await google().submit(job('veo-3.1-quality', { prompt: 'p', urls: [url, url, url], generationType: 'reference', resolution: '720p' }));
    assert.equal(submitted.kind, 'accepted');
    const sent = fake.callsTo('predictLongRunning').at(-1);
    assert.equal(sent?.model, 'veo-3.1-generate-preview');
    const instance = ((sent?.body.instances ?? []) as Array<Record<string, unknown>>)[0];
    assert.deepEqual(Object.keys(instance ?? {}).sort(), ['prompt', 'referenceImages']);
    assert.deepEqual(((instance?.referenceImages ?? []) as Array<{ referenceType: string }>).map((r) => r.referenceType), ['asset', 'asset', 'asset']);
    const lite = await google().submit(job('veo-3.1-lite', { prompt: 'p', resolution: '1080p' }));
    assert.equal(lite.kind, 'accepted');
    assert.equal(fake.callsTo('predictLongRunning').at(-1)?.model, 'veo-3.1-lite-generate-preview');
  });

  test('a failed operation and a filtered video: generation failures are retryable, filters are content_policy', async () => {
    const p = google();
    fake.script({ acceptThenFail: { code: 13, message: 'internal error' }, completeAfterMs: 10 });
    const failedJob = job('veo-3.1-fast', { prompt: 'p' });
    const failed = await p.submit(failedJob);
    assert.ok(failed.kind === 'accepted');
    const end = (await pollUntilDone(p, failedJob, failed.upstreamId)).outcome;
    assert.ok(end.kind === 'failed');
    assert.deepEqual([end.error.retryable, end.error.code], [true, 'generation_failed']);
    fake.script({ acceptThenFail: { code: 'filtered' }, completeAfterMs: 10 });
    const filteredJob = job('veo-3.1-fast', { prompt: 'p' });
    const filtered = await p.submit(filteredJob);
    assert.ok(filtered.kind === 'accepted');
    const blocked = (await pollUntilDone(p, filteredJob, filtered.upstreamId)).outcome;
    assert.ok(blocked.kind === 'failed');
    assert.deepEqual([blocked.error.retryable, blocked.error.code], [false, 'content_policy']);
  });

  test('the recorded operation answers read as documented', () => {
    assert.deepEqual(readOperation(PREDICT_LONG_RUNNING.responses.running?.body), { state: 'pending' });
    const done = readOperation(PREDICT_LONG_RUNNING.responses.done?.body);
    assert.ok(done.state === 'done');
    assert.equal(done.videos[0]?.uri, 'https://generativelanguage.googleapis.com/v1beta/files/qu4d28uipuqh:download?alt=media');
    const inline = readOperation({ done: true, response: { generateVideoResponse: { generatedSamples: [{ video: { encodedVideo: Buffer.from('mp4').toString('base64'), encoding: 'video/mp4' } }] } } });
    assert.ok(inline.state === 'done' && inline.videos[0]?.data?.toString() === 'mp4');
    const filtered = readOperation(PREDICT_LONG_RUNNING.responses.filtered?.body);
    assert.ok(filtered.state === 'failed' && filtered.error.code === 'content_policy');
    const failed = readOperation(PREDICT_LONG_RUNNING.responses.failed?.body);
    assert.ok(failed.state === 'failed' && failed.error.code === 'generation_failed');
  });

  test('polls that do not get through wait (Retry-After honoured); an operation name that is not one is refused', async () => {
    const p = google({ pollIntervalMs: 10, retryPollMs: 25 });
    const j = job('veo-3.1-fast', { prompt: 'p' });
    const bogus = await p.poll(j, '../../admin');
    assert.ok(bogus.kind === 'failed' && bogus.error.code === 'protocol');
    const unknownOp = await p.poll(j, 'models/veo-3.1-fast-generate-preview/operations/nope');
    assert.ok(unknownOp.kind === 'failed');
    assert.equal(unknownOp.error.code, 'not_found');
    fake.pollAnswers.push({ status: 429, body: GOOGLE_ERRORS.responses.rateLimited, headers: { 'retry-after': '3' } }, { status: 503, body: GOOGLE_ERRORS.responses.unavailable });
    assert.deepEqual(await p.poll(j, 'models/veo-3.1-fast-generate-preview/operations/any'), { kind: 'pending', pollAfterMs: 3_000 });
    assert.deepEqual(await p.poll(j, 'models/veo-3.1-fast-generate-preview/operations/any'), { kind: 'pending', pollAfterMs: 25 });
    const closed = createMediaProvider('g', { type: 'google', baseUrl: 'http://127.0.0.1:1', apiKey: 'k', timeoutMs: 500, concurrency: 1, options: { retryPollMs: 25 } });
    providers.push(closed);
    assert.deepEqual(await closed.poll(j, 'models/veo-3.1-fast-generate-preview/operations/x'), { kind: 'pending', pollAfterMs: 25 });
  });

  test('an accepted video whose answer was lost is unknown; reconcile cannot find an operation by anything of ours', async () => {
    fake.script({ hangOnSubmit: true });
    const p = google({}, 300);
    const j = job('veo-3.1-lite', { prompt: 'p', resolution: '720p' });
    assert.equal((await p.submit(j)).kind, 'unknown');
    assert.deepEqual(await p.reconcile(j), { kind: 'unknowable' });
  });
});
