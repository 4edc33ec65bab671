/**
 * fal against its published request schemas (issue 18, items 5 and 9): the strict fake checks each body
 * against the schema fal publishes for the endpoint (test/fixtures/upstreams/fal/), so a misnamed field,
 * a missing required one or a value outside an enum fails here as it would at fal; and a webhook that
 * says OK without its payload is a success whose result is read from the queue, not a failure.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { falRefusal as falRouteRefusal, falRequest } from '../../../src/providers/media/fal/fal.mapping.ts';
import type { MediaJob, MediaProvider } from '../../../src/providers/media/media-provider.ts';
import { createMediaProvider } from '../../../src/providers/registries/media.registry.ts';
import { type FalFake, falRefusal, startFalFake } from '../../fakes/media/fal.fake.ts';
import { CallbackReceiver, makeJob, pollUntilDone } from './helpers.ts';

let fake: FalFake;
let rx: CallbackReceiver;
const providers: MediaProvider[] = [];

function fal(options: Record<string, unknown> = {}): MediaProvider {
  const p = createMediaProvider('fal-main', { type: 'fal', baseUrl: fake.url, apiKey: fake.apiKey, timeoutMs: 2_000, concurrency: 4, options: { pollIntervalMs: 10, retryPollMs: 25, ...options } });
  providers.push(p);
  return p;
}

function job(model: string, input: Record<string, unknown>, upstreamModel: string): MediaJob {
  const made = makeJob(model, input, { upstreamModel });
  return { ...made, callbackUrl: rx.urlFor(made.attemptId) };
}

before(async () => {
  [fake, rx] = await Promise.all([startFalFake(), new CallbackReceiver().listen()]);
});

after(async () => {
  await Promise.all([...providers.map((p) => p.close?.()), fake.close(), rx.close()]);
});

describe('the strict fal fake refuses what fal’s schemas refuse', () => {
  const banana = { prompt: 'p', aspect_ratio: '16:9', resolution: '1K', num_images: 1, output_format: 'png' };
  test('a misspelt field, a missing required field and a value outside an enum, in fal’s 422 shape', () => {
    assert.equal(falRefusal('fal-ai/nano-banana-2', banana), undefined);
    assert.deepEqual(falRefusal('fal-ai/nano-banana-2', { ...banana, aspect_ratio: undefined, aspectRatio: '16:9' }), {
      status: 422,
      body: { detail: [{ loc: ['body', 'aspectRatio'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' }] },
    });
    assert.deepEqual(falRefusal('fal-ai/nano-banana-2/edit', banana), { status: 422, body: { detail: [{ loc: ['body', 'image_urls'], msg: 'Field required', type: 'missing' }] } });
    const refused = falRefusal('fal-ai/nano-banana-2', { ...banana, resolution: '512px' });
    assert.equal(refused?.status, 422);
    assert.match(JSON.stringify(refused?.body), /"loc":\["body","resolution"\],"msg":"Input should be '0.5K', '1K', '2K', '4K'","type":"literal_error"/u);
    assert.equal(falRefusal('fal-ai/no-such-app', banana)?.status, 404);
  });

  test('over HTTP: the 422 names the field and no request is queued', async () => {
    const before = fake.jobs.size;
    const res = await fetch(`${fake.url}/fal-ai/nano-banana-2`, {
      method: 'POST',
      headers: { authorization: `Key ${fake.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ ...banana, num_image: 1 }),
    });
    assert.equal(res.status, 422);
    assert.deepEqual(await res.json(), { detail: [{ loc: ['body', 'num_image'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' }] });
    assert.equal(fake.jobs.size, before);
  });
});

describe('fal bodies follow the published schemas', () => {
  test('nano-banana-2 at 512px asks for fal’s 0.5K tier and is accepted', async () => {
    const p = fal();
    const j = job('nano-banana-2', { prompt: 'a fox', size: '1:8', resolution: '512px' }, 'fal-ai/nano-banana-2');
    const submitted = await p.submit(j);
    assert.equal(submitted.kind, 'accepted', JSON.stringify(submitted));
    assert.deepEqual(fake.requestsTo('POST', '/fal-ai/nano-banana-2').at(-1)?.json, { prompt: 'a fox', aspect_ratio: '1:8', resolution: '0.5K', num_images: 1, output_format: 'png' });
  });

  test('nano-banana-pro: 512px is made at 1K (same price); the extreme ratios it lacks are refused before dispatch', async () => {
    const edit = falRequest(makeJob('nano-banana-pro', { prompt: 'p', urls: ['https://m.example/a.png'], resolution: '512px', size: '21:9' }, { upstreamModel: 'fal-ai/nano-banana-pro' }));
    assert.deepEqual(edit, {
      endpoint: 'fal-ai/nano-banana-pro/edit',
      app: 'fal-ai/nano-banana-pro',
      input: { prompt: 'p', image_urls: ['https://m.example/a.png'], aspect_ratio: '21:9', resolution: '1K', num_images: 1, output_format: 'png' },
    });
    const wide = job('nano-banana-pro', { prompt: 'p', size: '8:1' }, 'fal-ai/nano-banana-pro');
    assert.deepEqual(falRouteRefusal(wide), { field: 'size', message: "fal's fal-ai/nano-banana-pro does not offer aspect ratio 8:1" });
    const sent = fake.requests.length;
    assert.deepEqual(await fal().submit(wide), {
      kind: 'failed',
      error: { message: "fal: fal's fal-ai/nano-banana-pro does not offer aspect ratio 8:1", retryable: true, code: 'unsupported' },
    });
    assert.equal(fake.requests.length, sent, 'nothing was sent');
  });

  test('Sora 2 on fal takes 4 to 20 s in steps of 4: our 10, 15 and 25 s clips are refused; a route without an endpoint id refuses every request', () => {
    for (const duration of [10, 15, 25]) {
      assert.deepEqual(falRouteRefusal(makeJob('sora-2', { prompt: 'p', duration }, { upstreamModel: 'fal-ai/sora-2' })), {
        field: 'duration',
        message: `fal's fal-ai/sora-2 makes 4, 8, 12, 16 or 20 s videos, not ${duration} s`,
      });
    }
    assert.equal(falRequest(makeJob('sora-2-pro', { prompt: 'p', urls: ['https://m.example/a.png'] }, { upstreamModel: 'fal-ai/sora-2' })).endpoint, 'fal-ai/sora-2/image-to-video/pro');
    assert.equal(falRouteRefusal(makeJob('sora-2', { prompt: 'p' }, { upstreamModel: 'sora-2' }))?.scope, 'route');
  });

  test('z-image: a size without an image_size preset is refused instead of being dropped (fal would make 4:3)', () => {
    assert.deepEqual(falRouteRefusal(makeJob('z-image-turbo', { prompt: 'p', size: '2:3' }, { upstreamModel: 'fal-ai/z-image/turbo' })), {
      field: 'size',
      message: "fal's fal-ai/z-image takes image_size presets, none of which is 2:3",
    });
  });
});

describe('item 5: a webhook that says OK without its payload', () => {
  test('is a success whose result is read from the queue, not a failure', async () => {
    const p = fal({ webhookPublicKeys: [fake.publicKeyX] });
    fake.webhookPayloadError = true;
    try {
      const j = job('z-image-turbo', { prompt: 'big result' }, 'fal-ai/z-image/turbo');
      const submitted = await p.submit(j);
      assert.ok(submitted.kind === 'accepted');
      const [hook] = await rx.waitFor(`/callbacks/${j.attemptId}`);
      assert.ok(hook);
      const body = JSON.parse(hook.rawBody.toString()) as Record<string, unknown>;
      assert.deepEqual([body.status, body.payload, typeof body.payload_error], ['OK', null, 'string']);
      // Verified, but without a payload: no outcome, so the runner polls; the poll reads the result.
      assert.deepEqual(p.parseCallback?.({ headers: hook.headers, rawBody: hook.rawBody }), { upstreamId: submitted.upstreamId });
      const { outcome } = await pollUntilDone(p, j, submitted.upstreamId);
      assert.deepEqual(outcome, {
        kind: 'completed',
        result: { files: [{ fileType: 'image', url: `${fake.url}/files/${submitted.upstreamId}/0.png`, contentType: 'image/png' }], output: null },
      });
      assert.equal(fake.requestsTo('GET', `/fal-ai/z-image/requests/${submitted.upstreamId}`).filter((r) => !r.path.endsWith('/status')).length, 1, 'the result was fetched from the queue');
    } finally {
      fake.webhookPayloadError = false;
    }
  });
});
