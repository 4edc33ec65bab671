import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ADMIN_TOKEN, describeEachMode } from '../support/gateway.ts';

describeEachMode('admin API', (ctx) => {
  test('creates users with a balance and refuses a duplicate email', async () => {
    const email = `u${Date.now()}@example.com`;
    const user = await ctx.gw.admin<{ id: string; email: string; balance: number }>('POST', '/admin/v1/users', { email, balanceCents: 250 });
    assert.equal(user.email, email);
    assert.equal(user.balance, 250);
    const dup = await fetch(`${ctx.gw.url}/admin/v1/users`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ email: email.toUpperCase() }),
    });
    assert.equal(dup.status, 409);
  });

  test('refuses a wrong admin token and unknown fields', async () => {
    const wrong = await fetch(`${ctx.gw.url}/admin/v1/users`, { method: 'POST', headers: { authorization: 'Bearer nope', 'content-type': 'application/json' }, body: '{}' });
    assert.equal(wrong.status, 401);
    const user = await ctx.gw.api(ADMIN_TOKEN, 'POST', '/admin/v1/users', { balanceCents: 1, extra: true });
    assert.equal(user.status, 400);
    assert.equal((user.body as { error: { code: string } }).error.code, 'invalid_input');
    assert.match((user.body as { error: { message: string } }).error.message, /extra/);
    const negative = await ctx.gw.api(ADMIN_TOKEN, 'POST', '/admin/v1/users', { balanceCents: -5 });
    assert.equal(negative.status, 400);
  });

  test('the admin token counts only in Authorization: Bearer (scrubbers redact that header, not x-api-key)', async () => {
    const viaApiKey = await fetch(`${ctx.gw.url}/admin/v1/users?limit=1`, { headers: { 'x-api-key': ADMIN_TOKEN } });
    assert.equal(viaApiKey.status, 401);
    const body = (await viaApiKey.json()) as { error: { code: string; message: string } };
    assert.equal(body.error.code, 'unauthorized');
    assert.match(body.error.message, /only as Authorization: Bearer/);
    const write = await fetch(`${ctx.gw.url}/admin/v1/users`, { method: 'POST', headers: { 'x-api-key': ADMIN_TOKEN, 'content-type': 'application/json' }, body: '{"balanceCents":1}' });
    assert.equal(write.status, 401, 'nothing is made with it either');
    assert.equal((await fetch(`${ctx.gw.url}/admin/v1/users?limit=1`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).status, 200);
  });

  test('credits happen once per Idempotency-Key; another body with the same key is a 409', async () => {
    const { userId, key } = await ctx.gw.createUser(0);
    const credit = (amountCents: number, idem: string | undefined) =>
      fetch(`${ctx.gw.url}/admin/v1/users/${userId}/credits`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json', ...(idem ? { 'idempotency-key': idem } : {}) },
        body: JSON.stringify({ amountCents, note: 'top-up' }),
      });
    const first = await credit(500, 'pay-1');
    assert.equal(first.status, 200);
    const firstBody = (await first.json()) as { id: string; amountMicroUsd: string; balanceAfterCents: number };
    assert.equal(firstBody.amountMicroUsd, '5000000');
    const again = await credit(500, 'pay-1');
    assert.equal(again.status, 200);
    assert.equal(((await again.json()) as { id: string }).id, firstBody.id);
    const conflict = await credit(700, 'pay-1');
    assert.equal(conflict.status, 409);
    assert.equal(((await conflict.json()) as { error: { code: string } }).error.code, 'idempotency_key_reused');
    const missing = await credit(100, undefined);
    assert.equal(missing.status, 400);
    const me = await ctx.gw.api(key, 'GET', '/api/v1/user/me');
    assert.equal((me.body as { data: { balance: number } }).data.balance, 500);

    const overdraw = await credit(-600, 'fix-1');
    assert.equal(overdraw.status, 402);
    assert.equal(((await overdraw.json()) as { error: { code: string } }).error.code, 'insufficient_balance');

    const ledger = await ctx.gw.admin<{ data: Array<{ kind: string; amountCents: number }>; balanceMicroUsd: string }>('GET', `/admin/v1/users/${userId}/ledger`);
    assert.equal(ledger.balanceMicroUsd, '5000000');
    assert.deepEqual(
      ledger.data.map((e) => [e.kind, e.amountCents]),
      [['credit', 500]],
    );
  });

  test('unknown users are 404 for credits, keys and ledger', async () => {
    const res = await fetch(`${ctx.gw.url}/admin/v1/users/usr_nope/credits`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json', 'idempotency-key': 'k' },
      body: JSON.stringify({ amountCents: 1 }),
    });
    assert.equal(res.status, 404);
    assert.equal((await ctx.gw.api(ADMIN_TOKEN, 'POST', '/admin/v1/users/usr_nope/api-keys', {})).status, 404);
    assert.equal((await ctx.gw.api(ADMIN_TOKEN, 'GET', '/admin/v1/users/usr_nope/ledger')).status, 404);
  });

  test('lists providers with their health', async () => {
    const providers = await ctx.gw.admin<{ data: Array<{ name: string; type: string; health: { status: string } }> }>('GET', '/admin/v1/providers');
    const local = providers.data.find((p) => p.name === 'local');
    assert.equal(local?.type, 'local');
    assert.ok(['unknown', 'healthy', 'degraded', 'down'].includes(local?.health.status ?? ''));
  });
});
