/**
 * Who may manage API keys (issue 29, item 1), on whole gateways in both modes. A limited key cannot
 * lift its own limits, mint a wider key or revoke its owner's keys; a management key creates and
 * changes only keys no wider than itself, never itself; the dashboard session can do everything.
 * Every refusal is a 403 that changes nothing.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachMode, type TestGateway } from '../support/gateway.ts';

interface KeyView {
  id: string;
  name: string;
  manageKeys: boolean;
  revokedAt: string | null;
  limits: Record<string, unknown>;
  key?: string;
}

interface Answer {
  status: number;
  body: { data?: unknown; error?: { code: string; message: string; param?: string } };
}

interface Session {
  cookie: string;
  csrf: string;
}

let counter = 0;

/** A signed-up user's dashboard session (cookie and CSRF token), and their user id. */
async function signUp(gw: TestGateway): Promise<Session & { userId: string }> {
  const email = `keys.${process.pid}.${Date.now()}.${counter++}@example.com`;
  const res = await fetch(`${gw.url}/api/v1/auth/signup`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: 'correct horse battery' }) });
  assert.equal(res.status, 200);
  const cookie = /^sb_session=([^;]*)/.exec(res.headers.get('set-cookie') ?? '')?.[1] ?? '';
  const data = ((await res.json()) as { data: { csrfToken: string; user: { id: string } } }).data;
  return { cookie: `sb_session=${cookie}`, csrf: data.csrfToken, userId: data.user.id };
}

/** A call with an API key (a string) or a session. */
async function call(gw: TestGateway, as: string | Session, method: string, path: string, body?: unknown): Promise<Answer> {
  const headers: Record<string, string> = typeof as === 'string' ? { authorization: `Bearer ${as}` } : { cookie: as.cookie, 'x-csrf-token': as.csrf };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(gw.url + path, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Answer['body']) : {} };
}

async function createKey(gw: TestGateway, as: string | Session, body: Record<string, unknown>): Promise<KeyView & { key: string }> {
  const res = await call(gw, as, 'POST', '/api/v1/keys', body);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.data as KeyView & { key: string };
}

/** Every key of the user as the owner sees them (the admin API). */
async function keysOf(gw: TestGateway, userId: string): Promise<KeyView[]> {
  return gw.admin<KeyView[]>('GET', `/admin/v1/users/${userId}/api-keys`);
}

function assertRefused(answer: Answer, param?: string): void {
  assert.equal(answer.status, 403, JSON.stringify(answer.body));
  assert.equal(answer.body.error?.code, 'forbidden');
  assert.ok((answer.body.error?.message ?? '').length > 20, 'the refusal says why');
  if (param !== undefined) assert.equal(answer.body.error?.param, param, JSON.stringify(answer.body));
}

/** The key: a $0 cap, an allow-list, 1 request a minute, 1 at a time. */
const TIGHT = { spendCapMicroUsd: 0, allowedModels: ['gpt-5.4-mini'], requestsPerMinute: 1, tokensPerMinute: 2000, concurrentGenerations: 1 };

describeEachMode('who may manage API keys', (ctx) => {
  test('a limited key cannot lift its own limits: 403, and the limits stay', async () => {
    const { userId, key: owner } = await ctx.gw.createUser(1_000);
    const limited = await createKey(ctx.gw, owner, { name: 'tight', limits: TIGHT });
    const before = (await keysOf(ctx.gw, userId)).find((k) => k.id === limited.id);
    const lifted = await call(ctx.gw, limited.key, 'PATCH', `/api/v1/keys/${limited.id}`, {
      limits: { spendCapMicroUsd: null, allowedModels: null, requestsPerMinute: null, tokensPerMinute: null, concurrentGenerations: null },
    });
    assertRefused(lifted);
    assert.ok(lifted.body.error?.message.includes('management key'), lifted.body.error?.message);
    assertRefused(await call(ctx.gw, limited.key, 'PATCH', `/api/v1/keys/${limited.id}`, { manageKeys: true }));
    assertRefused(await call(ctx.gw, limited.key, 'PATCH', `/api/v1/keys/${limited.id}`, { name: 'renamed' }));
    const after = (await keysOf(ctx.gw, userId)).find((k) => k.id === limited.id);
    assert.deepEqual(after, before);
    assert.deepEqual(after?.limits, { ...TIGHT, spendCapPeriod: 'total', expiresAt: null });
  });

  test('a limited key cannot create a key, limited or not', async () => {
    const { userId, key: owner } = await ctx.gw.createUser(1_000);
    const limited = await createKey(ctx.gw, owner, { name: 'tight', limits: TIGHT });
    const count = (await keysOf(ctx.gw, userId)).length;
    assertRefused(await call(ctx.gw, limited.key, 'POST', '/api/v1/keys', { name: 'unlimited' }));
    assertRefused(await call(ctx.gw, limited.key, 'POST', '/api/v1/keys', { name: 'as tight', limits: TIGHT }));
    assertRefused(await call(ctx.gw, limited.key, 'POST', '/api/v1/keys', { name: 'manager', manageKeys: true }));
    assert.equal((await keysOf(ctx.gw, userId)).length, count);
  });

  test("a limited key cannot revoke or change its owner's other keys, and lists only itself", async () => {
    const { userId, key: owner } = await ctx.gw.createUser(1_000);
    const limited = await createKey(ctx.gw, owner, { name: 'tight', limits: TIGHT });
    const plain = await createKey(ctx.gw, owner, { name: 'plain' });
    const before = await keysOf(ctx.gw, userId);
    const others = before.filter((k) => k.id !== limited.id);
    assert.equal(others.length, 2);
    for (const other of others) {
      assertRefused(await call(ctx.gw, limited.key, 'DELETE', `/api/v1/keys/${other.id}`));
      assertRefused(await call(ctx.gw, limited.key, 'PATCH', `/api/v1/keys/${other.id}`, { limits: { spendCapMicroUsd: 0 } }));
    }
    assertRefused(await call(ctx.gw, limited.key, 'DELETE', `/api/v1/keys/${limited.id}`));
    const after = await keysOf(ctx.gw, userId);
    assert.deepEqual(
      after.map((k) => [k.id, k.revokedAt, k.limits]),
      before.map((k) => [k.id, k.revokedAt, k.limits]),
    );
    assert.equal((await ctx.gw.api(owner, 'GET', '/api/v1/user/me')).status, 200);
    assert.equal((await ctx.gw.api(plain.key, 'GET', '/api/v1/user/me')).status, 200);

    const listed = await call(ctx.gw, limited.key, 'GET', '/api/v1/keys');
    assert.equal(listed.status, 200);
    assert.deepEqual(
      (listed.body.data as KeyView[]).map((k) => k.id),
      [limited.id],
    );
  });

  test('a management key creates keys no wider than itself; a wider one is refused naming the field', async () => {
    const session = await signUp(ctx.gw);
    const expiresAt = new Date(Date.now() + 3_600_000).toISOString();
    const bounds = { expiresAt, allowedModels: ['gpt-5.4-mini', 'z-image-turbo'] };
    const manager = await createKey(ctx.gw, session, { name: 'manager', manageKeys: true, limits: bounds });
    assert.equal(manager.manageKeys, true);

    const narrower = await createKey(ctx.gw, manager.key, {
      name: 'narrower',
      limits: { spendCapMicroUsd: 500_000, expiresAt: new Date(Date.now() + 60_000).toISOString(), allowedModels: ['gpt-5.4-mini'], requestsPerMinute: 5, concurrentGenerations: 1 },
    });
    assert.equal(narrower.manageKeys, false);
    const asWide = await createKey(ctx.gw, manager.key, { name: 'as wide', limits: bounds });
    assert.deepEqual([asWide.limits.expiresAt, asWide.limits.allowedModels], [new Date(expiresAt).toISOString(), bounds.allowedModels]);

    const count = (await keysOf(ctx.gw, session.userId)).length;
    const later = new Date(Date.now() + 7_200_000).toISOString();
    for (const [limits, field] of [
      [{ ...bounds, expiresAt: null }, 'limits.expiresAt'],
      [{ ...bounds, expiresAt: later }, 'limits.expiresAt'],
      [{ ...bounds, allowedModels: null }, 'limits.allowedModels'],
      [{ ...bounds, allowedModels: ['gpt-5.4-mini', 'claude-haiku-4.5'] }, 'limits.allowedModels'],
    ] as const) {
      assertRefused(await call(ctx.gw, manager.key, 'POST', '/api/v1/keys', { name: 'wider', limits }), field);
    }
    assertRefused(await call(ctx.gw, manager.key, 'POST', '/api/v1/keys', { name: 'wider', limits: {} }), 'limits.expiresAt');
    assertRefused(await call(ctx.gw, manager.key, 'POST', '/api/v1/keys', { name: 'manager 2', manageKeys: true, limits: bounds }), 'manageKeys');
    assert.equal((await keysOf(ctx.gw, session.userId)).length, count, 'nothing was created');
  });

  test('a management key with a limit that adds up across keys (spend cap, rpm, concurrency) creates no key at all', async () => {
    const session = await signUp(ctx.gw);
    for (const [limits, field] of [
      [{ spendCapMicroUsd: 1_000_000, spendCapPeriod: 'total' }, 'limits.spendCapMicroUsd'],
      [{ requestsPerMinute: 10 }, 'limits.requestsPerMinute'],
      [{ tokensPerMinute: 10_000 }, 'limits.tokensPerMinute'],
      [{ concurrentGenerations: 2 }, 'limits.concurrentGenerations'],
    ] as const) {
      const manager = await createKey(ctx.gw, session, { name: 'capped manager', manageKeys: true, limits });
      const count = (await keysOf(ctx.gw, session.userId)).length;
      // Two keys of $0.50 under a $1 manager would spend $1 each: even the narrowest is refused.
      assertRefused(await call(ctx.gw, manager.key, 'POST', '/api/v1/keys', { name: 'child', limits: { spendCapMicroUsd: 1, spendCapPeriod: 'total', requestsPerMinute: 1, tokensPerMinute: 1, concurrentGenerations: 1 } }), field);
      assert.equal((await keysOf(ctx.gw, session.userId)).length, count, 'nothing was created');
    }
  });

  test('a management key changes and revokes only keys it could have made, and never itself', async () => {
    const session = await signUp(ctx.gw);
    const bounds = { spendCapMicroUsd: 1_000_000, requestsPerMinute: 10 };
    const manager = await createKey(ctx.gw, session, { name: 'manager', manageKeys: true, limits: bounds });
    const wide = await createKey(ctx.gw, session, { name: 'wide' });
    const peer = await createKey(ctx.gw, session, { name: 'peer manager', manageKeys: true, limits: bounds });
    const child = await createKey(ctx.gw, session, { name: 'child', limits: { spendCapMicroUsd: 500_000, requestsPerMinute: 5 } });
    const snapshot = async () => (await keysOf(ctx.gw, session.userId)).map((k) => ({ ...k, lastUsedAt: null }));
    const before = await snapshot();

    assertRefused(await call(ctx.gw, manager.key, 'PATCH', `/api/v1/keys/${manager.id}`, { limits: { spendCapMicroUsd: null } }));
    assertRefused(await call(ctx.gw, manager.key, 'PATCH', `/api/v1/keys/${manager.id}`, { manageKeys: false }));
    assertRefused(await call(ctx.gw, manager.key, 'PATCH', `/api/v1/keys/${child.id}`, { limits: { requestsPerMinute: null } }), 'limits.requestsPerMinute');
    // Within the manager's bounds, but wider than the child had: a capped manager only narrows.
    assertRefused(await call(ctx.gw, manager.key, 'PATCH', `/api/v1/keys/${child.id}`, { limits: { spendCapMicroUsd: 1_000_000 } }), 'limits.spendCapMicroUsd');
    assertRefused(await call(ctx.gw, manager.key, 'PATCH', `/api/v1/keys/${child.id}`, { manageKeys: true }), 'manageKeys');
    assertRefused(await call(ctx.gw, manager.key, 'PATCH', `/api/v1/keys/${wide.id}`, { limits: bounds }), 'limits.spendCapMicroUsd');
    assertRefused(await call(ctx.gw, manager.key, 'DELETE', `/api/v1/keys/${wide.id}`), 'limits.spendCapMicroUsd');
    assertRefused(await call(ctx.gw, manager.key, 'PATCH', `/api/v1/keys/${peer.id}`, { name: 'mine now' }));
    assertRefused(await call(ctx.gw, manager.key, 'DELETE', `/api/v1/keys/${peer.id}`));
    assert.deepEqual(await snapshot(), before, 'every refusal changed nothing');

    const narrowed = await call(ctx.gw, manager.key, 'PATCH', `/api/v1/keys/${child.id}`, { name: 'child, narrower', limits: { spendCapMicroUsd: 10, requestsPerMinute: 1 } });
    assert.equal(narrowed.status, 200, JSON.stringify(narrowed.body));
    assert.deepEqual([(narrowed.body.data as KeyView).name, (narrowed.body.data as KeyView).limits.spendCapMicroUsd], ['child, narrower', 10]);
    assert.equal((await call(ctx.gw, manager.key, 'DELETE', `/api/v1/keys/${child.id}`)).status, 200);
    assert.equal((await ctx.gw.api(child.key, 'GET', '/api/v1/user/me')).status, 401);
    // A management key may end itself (a leaked key's holder should be able to).
    assert.equal((await call(ctx.gw, manager.key, 'DELETE', `/api/v1/keys/${manager.id}`)).status, 200);
    assert.equal((await ctx.gw.api(manager.key, 'GET', '/api/v1/keys')).status, 401);
  });

  test('the session can do everything: lift limits, grant and withdraw management, revoke any key', async () => {
    const session = await signUp(ctx.gw);
    const limited = await createKey(ctx.gw, session, { name: 'tight', limits: TIGHT });
    assert.equal(limited.manageKeys, false);
    const lifted = await call(ctx.gw, session, 'PATCH', `/api/v1/keys/${limited.id}`, {
      manageKeys: true,
      limits: { spendCapMicroUsd: null, allowedModels: null, requestsPerMinute: null, tokensPerMinute: null, concurrentGenerations: null },
    });
    assert.equal(lifted.status, 200, JSON.stringify(lifted.body));
    assert.equal((lifted.body.data as KeyView).manageKeys, true);
    assert.deepEqual((lifted.body.data as KeyView).limits, { spendCapMicroUsd: null, spendCapPeriod: null, expiresAt: null, allowedModels: null, requestsPerMinute: null, tokensPerMinute: null, concurrentGenerations: null });

    // Granted now, it manages at once (the flag is read from the store, not the auth cache).
    const made = await createKey(ctx.gw, limited.key, { name: 'made by the key' });
    assert.equal((await call(ctx.gw, session, 'PATCH', `/api/v1/keys/${limited.id}`, { manageKeys: false })).status, 200);
    assertRefused(await call(ctx.gw, limited.key, 'POST', '/api/v1/keys', { name: 'no longer' }));

    const manager = await createKey(ctx.gw, session, { name: 'manager', manageKeys: true });
    for (const key of [made, manager, limited]) assert.equal((await call(ctx.gw, session, 'DELETE', `/api/v1/keys/${key.id}`)).status, 200);
    assert.ok((await keysOf(ctx.gw, session.userId)).every((k) => k.revokedAt !== null));
  });

  test('the admin API makes management keys on request; a key is not one by default', async () => {
    const { userId } = await ctx.gw.createUser(1);
    const plain = await ctx.gw.admin<KeyView & { key: string }>('POST', `/admin/v1/users/${userId}/api-keys`, { name: 'plain' });
    const manager = await ctx.gw.admin<KeyView & { key: string }>('POST', `/admin/v1/users/${userId}/api-keys`, { name: 'manager', manageKeys: true });
    assert.deepEqual([plain.manageKeys, manager.manageKeys], [false, true]);
    assertRefused(await call(ctx.gw, plain.key, 'POST', '/api/v1/keys', { name: 'from plain' }));
    assert.equal((await call(ctx.gw, manager.key, 'POST', '/api/v1/keys', { name: 'from manager' })).status, 200);
  });
});
