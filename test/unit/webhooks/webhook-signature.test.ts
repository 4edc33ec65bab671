import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { newWebhookSecret } from '../../../src/domain/webhook-secret.ts';
import { signedWebhookHeaders, signWebhook, webhookSecretKey, webhookSignatureHeader } from '../../../src/services/webhooks/webhook-signature.ts';

const body = JSON.stringify({ code: 200, data: { taskId: 'task_1', status: 'finished', files: [], output: null, createdTime: '2026-01-01T00:00:00.000Z', errorMessage: null } });

describe('webhook signatures', () => {
  test('the same signature as the standardwebhooks reference library', () => {
    const secret = newWebhookSecret();
    const ts = Math.floor(Date.now() / 1000);
    assert.equal(signWebhook(secret, 'whd_1', ts, body), new Webhook(secret).sign('whd_1', new Date(ts * 1000), body));
  });

  test('the reference library verifies our headers', () => {
    const secret = newWebhookSecret();
    const headers = signedWebhookHeaders({ messageId: 'whd_2', timestampSeconds: Math.floor(Date.now() / 1000), body, secrets: [secret] });
    assert.deepEqual(new Webhook(secret).verify(body, { ...headers }), JSON.parse(body));
    assert.equal(headers['content-type'], 'application/json');
    assert.match(headers['user-agent'], /Switchboard/);
  });

  test('two secrets give two space-separated signatures; each verifies alone, a stranger does not', () => {
    const [a, b, stranger] = [newWebhookSecret(), newWebhookSecret(), newWebhookSecret()];
    const ts = Math.floor(Date.now() / 1000);
    const header = webhookSignatureHeader([a, b], 'whd_3', ts, body);
    assert.equal(header.split(' ').length, 2);
    const headers = { 'webhook-id': 'whd_3', 'webhook-timestamp': String(ts), 'webhook-signature': header };
    new Webhook(a).verify(body, headers);
    new Webhook(b).verify(body, headers);
    assert.throws(() => new Webhook(stranger).verify(body, headers), /No matching signature/);
    assert.throws(() => new Webhook(a).verify(`${body} `, headers), 'a changed body fails');
  });

  test('the key is the base64 after whsec_ (or the whole value without the prefix)', () => {
    const raw = Buffer.alloc(32, 7);
    assert.deepEqual(webhookSecretKey(`whsec_${raw.toString('base64')}`), raw);
    assert.deepEqual(webhookSecretKey(raw.toString('base64')), raw);
    assert.throws(() => webhookSecretKey('whsec_'), /base64/);
    assert.throws(() => webhookSignatureHeader([], 'x', 1, body), /at least one secret/);
  });
});
