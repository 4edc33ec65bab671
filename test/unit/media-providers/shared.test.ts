import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { createMediaProvider } from '../../../src/providers/registries/media.registry.ts';
import { asString, lookup, mapFields, snakeCase } from '../../../src/providers/media/shared/field-mapping.ts';
import { decodeDataUri, multipartBody } from '../../../src/providers/media/shared/multipart.ts';
import { statusClass } from '../../../src/providers/media/shared/provider-errors.ts';
import { guessFileType } from '../../../src/providers/media/shared/result-files.ts';
import { verifyStandardWebhook } from '../../../src/providers/media/shared/standard-webhooks.ts';
import { startKieFake } from '../../fakes/media/kie.fake.ts';
import { makeJob } from './helpers.ts';

describe('classification and mapping helpers', () => {
  test('HTTP statuses: content problems are final, provider problems retryable', () => {
    const table = [400, 401, 402, 403, 404, 408, 409, 413, 422, 425, 429, 500, 502, 503, 504].map((s) => [s, statusClass(s).retryable, statusClass(s).code]);
    assert.deepEqual(table, [
      [400, false, 'invalid_request'],
      [401, true, 'auth'],
      [402, true, 'credits'],
      [403, true, 'auth'],
      [404, true, 'not_found'],
      [408, true, 'timeout'],
      [409, false, 'invalid_request'],
      [413, false, 'invalid_request'],
      [422, false, 'invalid_request'],
      [425, true, 'rate_limited'],
      [429, true, 'rate_limited'],
      [500, true, 'unavailable'],
      [502, true, 'unavailable'],
      [503, true, 'unavailable'],
      [504, true, 'unavailable'],
    ]);
  });

  test('field tables rename, convert, drop, and snake_case the rest', () => {
    assert.equal(snakeCase('imageWithRoles'), 'image_with_roles');
    assert.equal(snakeCase('enableSafetyChecker'), 'enable_safety_checker');
    assert.equal(snakeCase('prompt'), 'prompt');
    const out = mapFields(
      { prompt: 'p', aspectRatio: '9:16', duration: 10, seed: 3, imageWithRoles: [{ url: 'u', role: 'first_frame' }], skipMe: true },
      { rules: { aspectRatio: lookup('aspect_ratio', { '9:16': 'portrait' }), duration: asString('n_frames'), skipMe: false } },
    );
    assert.deepEqual(out, { prompt: 'p', aspect_ratio: 'portrait', n_frames: '10', seed: 3, image_with_roles: [{ url: 'u', role: 'first_frame' }] });
    assert.deepEqual(mapFields({ prompt: 'p', extra: 1 }, { rules: {}, others: 'drop' }), {});
  });

  test('file types from content type or extension', () => {
    assert.equal(guessFileType('https://cdn.example/x/out.MP4?sig=1'), 'video');
    assert.equal(guessFileType('https://cdn.example/a.webp'), 'image');
    assert.equal(guessFileType('https://cdn.example/a.wav'), 'music');
    assert.equal(guessFileType('https://cdn.example/a', 'audio/mpeg; charset=x'), 'music');
    assert.equal(guessFileType('https://cdn.example/a'), undefined);
  });

  test('multipart bodies parse back; data URIs decode', async () => {
    const { body, contentType } = multipartBody([
      { name: 'prompt', value: 'hello "world"' },
      { name: 'image[]', filename: 'a.png', contentType: 'image/png', data: Buffer.from([1, 2, 3]) },
    ]);
    const form = await new Response(new Uint8Array(body), { headers: { 'content-type': contentType } }).formData();
    assert.equal(form.get('prompt'), 'hello "world"');
    const file = form.get('image[]');
    assert.ok(file instanceof Blob);
    assert.deepEqual([...new Uint8Array(await file.arrayBuffer())], [1, 2, 3]);
    assert.deepEqual(decodeDataUri('data:image/png;base64,AQID'), { data: Buffer.from([1, 2, 3]), contentType: 'image/png' });
    assert.equal(decodeDataUri('https://x'), undefined);
  });

  test('Standard Webhooks: what the reference library signs verifies; tampering, old times and other secrets do not', () => {
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const body = '{"id":"p1","status":"succeeded"}';
    const now = new Date();
    const signature = new Webhook(secret).sign('msg_1', now, body);
    const headers = { 'webhook-id': 'msg_1', 'webhook-timestamp': String(Math.floor(now.getTime() / 1000)), 'webhook-signature': `v1,bogus ${signature}` };
    assert.deepEqual(verifyStandardWebhook(secret, headers, Buffer.from(body)), { ok: true, webhookId: 'msg_1' });
    assert.equal(verifyStandardWebhook(secret, headers, Buffer.from(body.replace('succeeded', 'failed'))).ok, false);
    assert.equal(verifyStandardWebhook('whsec_b3RoZXI=', headers, Buffer.from(body)).ok, false);
    assert.equal(verifyStandardWebhook(secret, headers, Buffer.from(body), { nowMs: now.getTime() + 600_000 }).ok, false);
    assert.deepEqual(verifyStandardWebhook(secret, {}, Buffer.from(body)), { ok: false, reason: 'missing webhook-id, webhook-timestamp or webhook-signature' });
  });
});

describe('fake upstream throughput', () => {
  test('instant jobs without recording: 300 submits and polls, all completed', async () => {
    const fake = await startKieFake({ record: false, callbacks: false });
    fake.defaultBehaviour = { instant: true };
    const p = createMediaProvider('kie-bench', { type: 'kie', baseUrl: fake.url, apiKey: fake.apiKey, timeoutMs: 5_000, concurrency: 64, options: { pollIntervalMs: 0 } });
    try {
      const started = Date.now();
      const results = await Promise.all(
        Array.from({ length: 300 }, async (_, i) => {
          const j = makeJob('z-image-turbo', { prompt: `bench ${i}` });
          const s = await p.submit(j);
          return s.kind === 'accepted' ? (await p.poll(j, s.upstreamId)).kind : s.kind;
        }),
      );
      const elapsed = Date.now() - started;
      assert.deepEqual(new Set(results), new Set(['completed']));
      assert.equal(fake.requests.length, 0);
      assert.equal(fake.jobs.size, 300);
      assert.ok(elapsed < 10_000, `${elapsed} ms`);
    } finally {
      await p.close?.();
      await fake.close();
    }
  });
});
