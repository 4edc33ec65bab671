/**
 * Issue 18, item 8: a 429 from Replicate while a prediction is polled asks for the next poll after its
 * `Retry-After` (Replicate documents 429 "Request was throttled" for its 3,000 requests per minute on
 * other endpoints), not after the provider's short retry interval. A server of its own: only the
 * status line and the header matter here.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { MediaProvider } from '../../../src/providers/media/media-provider.ts';
import { retryDelayMs } from '../../../src/providers/media/shared/provider-errors.ts';
import { createMediaProvider } from '../../../src/providers/registries/media.registry.ts';
import { makeJob } from './helpers.ts';

let server: Server;
let url = '';
let retryAfter: string | undefined;

before(async () => {
  server = createServer((_req, res) => {
    res.writeHead(429, { 'content-type': 'application/json', ...(retryAfter === undefined ? {} : { 'retry-after': retryAfter }) });
    res.end(JSON.stringify({ detail: 'Request was throttled. Your rate limit resets in ~30s.', status: 429 }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

function replicate(): MediaProvider {
  return createMediaProvider('replicate', { type: 'replicate', baseUrl: `${url}/v1`, apiKey: 'r8_test', timeoutMs: 2_000, concurrency: 1, options: { pollIntervalMs: 10, retryPollMs: 25 } });
}

describe('replicate 429 while polling', () => {
  test('the next poll waits for Retry-After in seconds', async () => {
    retryAfter = '30';
    const p = replicate();
    try {
      const outcome = await p.poll(makeJob('z-image-turbo', { prompt: 'p' }, { upstreamModel: 'prunaai/z-image-turbo' }), 'abc123');
      assert.deepEqual(outcome, { kind: 'pending', pollAfterMs: 30_000 });
    } finally {
      await p.close?.();
    }
  });

  test('without the header the provider retry interval applies', async () => {
    retryAfter = undefined;
    const p = replicate();
    try {
      const outcome = await p.poll(makeJob('z-image-turbo', { prompt: 'p' }, { upstreamModel: 'prunaai/z-image-turbo' }), 'abc123');
      assert.deepEqual(outcome, { kind: 'pending', pollAfterMs: 25 });
    } finally {
      await p.close?.();
    }
  });

  test('an HTTP date, a past date, nonsense and a huge value', () => {
    const now = Date.parse('2026-11-25T12:00:00Z');
    const at = (value: string) => retryDelayMs({ headers: { 'retry-after': value } }, 25, now);
    assert.equal(at('Wed, 25 Nov 2026 12:01:00 GMT'), 60_000);
    assert.equal(at('Wed, 25 Nov 2026 11:00:00 GMT'), 25);
    assert.equal(at('soon'), 25);
    assert.equal(at('86400'), 600_000, 'capped at ten minutes');
  });
});
