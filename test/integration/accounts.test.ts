import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachMode } from '../support/gateway.ts';

const logLines: string[] = [];

describeEachMode(
  'accounts and API keys',
  (ctx) => {
    test('GET /user/me answers the key owner with the balance in whole cents', async () => {
      const { key, userId } = await ctx.gw.createUser(1234);
      const res = await ctx.gw.api(key, 'GET', '/api/v1/user/me');
      assert.equal(res.status, 200);
      const body = res.body as { code: number; data: { id: string; balance: number; createdAt: string } };
      assert.equal(body.code, 200);
      assert.equal(body.data.id, userId);
      assert.equal(body.data.balance, 1234);
      assert.ok(!Number.isNaN(Date.parse(body.data.createdAt)));
    });

    test('a missing, malformed or unknown key is a 401 in the error envelope', async () => {
      for (const key of [undefined, 'short', 'sb_thisIsNotARealKeyButLongEnough0123456']) {
        const res = await ctx.gw.api(key, 'GET', '/api/v1/user/me');
        assert.equal(res.status, 401);
        const body = res.body as { code: number; error: { message: string; type: string; code: string }; requestId: string };
        assert.equal(body.code, 401);
        assert.equal(body.error.type, 'unauthorized');
        assert.equal(body.error.code, 'unauthorized');
        assert.ok(body.error.message.length > 0);
        assert.equal(body.requestId, res.headers.get('x-request-id'));
      }
    });

    test('keys are shown once, listed by prefix, and a revoked key is refused at once', async () => {
      const { key, userId } = await ctx.gw.createUser(100);
      const created = await ctx.gw.api(key, 'POST', '/api/v1/keys', { name: 'second' });
      assert.equal(created.status, 200);
      const second = (created.body as { data: { id: string; key: string; prefix: string; name: string } }).data;
      assert.ok(second.key.startsWith(second.prefix));
      assert.ok(second.key.length >= 32, 'at least 128 random bits');
      assert.equal((await ctx.gw.api(second.key, 'GET', '/api/v1/user/me')).status, 200);

      const list = await ctx.gw.api(key, 'GET', '/api/v1/keys');
      const keys = (list.body as { data: Array<Record<string, unknown>> }).data;
      assert.equal(keys.length, 2);
      assert.ok(!JSON.stringify(list.body).includes(second.key), 'a listing never contains a key');
      assert.ok(keys.every((k) => typeof k.prefix === 'string' && !('key' in k) && !('keyHash' in k)));

      const revoked = await ctx.gw.api(key, 'DELETE', `/api/v1/keys/${second.id}`);
      assert.equal(revoked.status, 200);
      assert.equal((await ctx.gw.api(second.key, 'GET', '/api/v1/user/me')).status, 401);
      // The admin API revokes too, and it is idempotent.
      await ctx.gw.admin('DELETE', `/admin/v1/api-keys/${second.id}`);
      const adminList = await ctx.gw.admin<Array<{ id: string; revokedAt: string | null }>>('GET', `/admin/v1/users/${userId}/api-keys`);
      assert.ok(adminList.find((k) => k.id === second.id)?.revokedAt);
    });

    test("a user cannot revoke another user's key", async () => {
      const alice = await ctx.gw.createUser(1);
      const bob = await ctx.gw.createUser(1);
      const bobKeys = (await ctx.gw.api(bob.key, 'GET', '/api/v1/keys')).body as { data: Array<{ id: string }> };
      const res = await ctx.gw.api(alice.key, 'DELETE', `/api/v1/keys/${bobKeys.data[0]?.id}`);
      assert.equal(res.status, 404);
      assert.equal((await ctx.gw.api(bob.key, 'GET', '/api/v1/user/me')).status, 200);
    });

    test('last-used time is recorded', async () => {
      const { key } = await ctx.gw.createUser(1);
      await ctx.gw.api(key, 'GET', '/api/v1/user/me');
      await ctx.gw.gateway.services.authenticator.flushLastUsed();
      const keys = (await ctx.gw.api(key, 'GET', '/api/v1/keys')).body as { data: Array<{ lastUsedAt: string | null }> };
      assert.ok(keys.data[0]?.lastUsedAt);
    });

    test('no API key appears in any log line', async () => {
      const { key } = await ctx.gw.createUser(1);
      await ctx.gw.api(key, 'GET', '/api/v1/user/me');
      await ctx.gw.api(`${key}x`, 'GET', '/api/v1/user/me');
      await ctx.gw.api(key, 'POST', '/api/v1/keys', { name: 'logged?' });
      assert.ok(logLines.length > 0);
      const secret = key.slice(3);
      assert.ok(!logLines.some((line) => line.includes(secret)), 'a key leaked into the logs');
    });

    test('every log line of a request carries its request id', async () => {
      const res = await fetch(`${ctx.gw.url}/api/v1/user/me`, { headers: { 'x-request-id': 'trace-abc-123' } });
      assert.equal(res.status, 401);
      assert.equal(res.headers.get('x-request-id'), 'trace-abc-123');
      const lines = logLines.filter((l) => l.includes('trace-abc-123')).map((l) => JSON.parse(l) as { requestId: string });
      assert.ok(lines.length >= 2, 'the refusal and the completion are logged');
      assert.ok(lines.every((l) => l.requestId === 'trace-abc-123'));
    });
  },
  { logLines },
);
