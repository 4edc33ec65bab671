import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { fetchAndProbe } from '../../../src/adapters/media/fetch-and-probe.ts';
import { MediaProbeError } from '../../../src/adapters/media/probe-media.ts';
import { GuardedHttpClient } from '../../../src/adapters/outbound/guarded-http-client.ts';
import { OutboundUrlError } from '../../../src/adapters/outbound/outbound-url-error.ts';
import { renderAudio } from '../../../src/providers/local/render/render-audio.ts';
import { renderImage } from '../../../src/providers/local/render/render-image.ts';
import { renderVideo } from '../../../src/providers/local/render/render-video.ts';

let server: Server;
let origin = '';
const routes = new Map<string, { body: Buffer; type: string }>();
let requests = 0;

before(async () => {
  const video = await renderVideo({ prompt: 'fetched', seed: 2, width: 256, height: 144, durationS: 4, fps: 12, withAudio: true, format: 'mp4' });
  // The server lies about the type: the probe must not care.
  routes.set('/clip.png', { body: video, type: 'image/png' });
  routes.set('/photo.jpg', { body: await renderImage({ prompt: 'fetched', seed: 2, width: 200, height: 100, format: 'png' }), type: 'image/jpeg' });
  routes.set('/song', { body: await renderAudio({ seed: 2, durationS: 2, format: 'wav' }), type: 'application/octet-stream' });
  routes.set('/moved', { body: Buffer.alloc(0), type: 'redirect:/clip.png' });
  server = createServer((req, res) => {
    requests += 1;
    const route = routes.get(req.url ?? '');
    if (!route) {
      res.writeHead(404).end('not here');
      return;
    }
    if (route.type.startsWith('redirect:')) {
      res.writeHead(302, { Location: route.type.slice('redirect:'.length) }).end();
      return;
    }
    res.writeHead(200, { 'Content-Type': route.type, 'Content-Length': String(route.body.length) }).end(route.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const client = new GuardedHttpClient({ allowPrivate: true });

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => assert.fail('expected a rejection'),
    (e: unknown) => e,
  );
}

describe('fetchAndProbe', () => {
  test('downloads and measures a video whatever its name and Content-Type claim', async () => {
    const media = await fetchAndProbe(client, `${origin}/clip.png`, { kind: 'video', maxBytes: 10_000_000, formats: ['mp4', 'mov'] });
    assert.equal(media.format, 'mp4');
    assert.ok(Math.abs((media.durationS ?? 0) - 4) <= 0.1);
    assert.deepEqual([media.width, media.height, media.hasAudio], [256, 144, true]);
    assert.equal(media.url, `${origin}/clip.png`);
    assert.equal(media.finalUrl, `${origin}/clip.png`);
  });

  test('follows a redirect and reports where the file came from', async () => {
    const media = await fetchAndProbe(client, `${origin}/moved`, { kind: 'video', maxBytes: 10_000_000, formats: [] });
    assert.equal(media.finalUrl, `${origin}/clip.png`);
    assert.equal(media.format, 'mp4');
  });

  test('measures audio; an empty format list accepts any of the kind', async () => {
    const media = await fetchAndProbe(client, `${origin}/song`, { kind: 'audio', maxBytes: 1_000_000, formats: [] });
    assert.deepEqual([media.format, media.durationS], ['wav', 2]);
  });

  test('a format outside the accepted list is refused, aliases included', async () => {
    const error = await rejection(fetchAndProbe(client, `${origin}/photo.jpg`, { kind: 'image', maxBytes: 1_000_000, formats: ['JPG'] }));
    assert.ok(error instanceof MediaProbeError);
    assert.equal(error.reason, 'format_not_allowed');
    assert.equal(error.format, 'png');
    assert.match(error.message, /accepted here: jpeg/u);
    const ok = await fetchAndProbe(client, `${origin}/photo.jpg`, { kind: 'image', maxBytes: 1_000_000, formats: ['jpg', 'png'] });
    assert.deepEqual([ok.width, ok.height], [200, 100]);
  });

  test('a file over the size limit is refused by the download', async () => {
    const error = await rejection(fetchAndProbe(client, `${origin}/clip.png`, { kind: 'video', maxBytes: 1_000, formats: [] }));
    assert.ok(error instanceof OutboundUrlError);
    assert.equal(error.reason, 'too_large');
  });

  test('a 404 is refused with http, a private URL without permission before any request', async () => {
    const missing = await rejection(fetchAndProbe(client, `${origin}/nothing`, { kind: 'image', maxBytes: 1_000, formats: [] }));
    assert.ok(missing instanceof OutboundUrlError);
    assert.equal(missing.reason, 'http');
    assert.match(missing.message, /404/u);
    const before = requests;
    const strict = new GuardedHttpClient({ allowPrivate: false });
    const refused = await rejection(fetchAndProbe(strict, `${origin}/clip.png`, { kind: 'video', maxBytes: 10_000_000, formats: [] }));
    assert.ok(refused instanceof OutboundUrlError);
    assert.equal(refused.reason, 'private_address');
    assert.equal(requests, before);
  });
});
