/**
 * Upstreams changed live through the admin API (issue 32, items 1 to 4): a provider with a pool of
 * weighted keys added without a restart, a route pointed at it, a key rotated with no failed request,
 * a key the upstream refuses disabled while the other serves, versions guarding every change, bad
 * settings refused as the config file refuses them, and no secret in any answer or log line.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, beforeEach, test } from 'node:test';
import { verifyLedger } from '../../src/adapters/db/ledger/ledger-checks.ts';
import { assertSettled, expectedCost, heldMicro, openAiClient, prices, startChatFakes } from '../support/chat-gateway.ts';
import { ADMIN_TOKEN, describeEachMode } from '../support/gateway.ts';

const fakes = await startChatFakes();
after(() => fakes.close());
const KEY_A = 'sk-live-aaaaaaaaaaaaaaaaaaaa1111';
const KEY_B = 'sk-live-bbbbbbbbbbbbbbbbbbbb2222';
const KEY_C = 'sk-live-cccccccccccccccccccc3333';
const OPTION_SECRET = 'hdr-secret-value-0123456789';
const SECRETS = [KEY_A, KEY_B, KEY_C, OPTION_SECRET];
const logLines: string[] = [];

interface KeyView {
  id: string;
  hint: string;
  weight: number;
  enabled: boolean;
  state: string;
  disabledReason: string | null;
  lastError: string | null;
}
interface ProviderView {
  name: string;
  source: string;
  version: number | null;
  enabled: boolean;
  keys: KeyView[];
  options: Record<string, unknown>;
}
interface RouteView {
  source: string;
  version: number | null;
  entries: Array<{ provider: string; model: string; priority: number; weight: number; state: string; callsLastHour: number; share: number; keys: Array<{ id: string; state: string }> }>;
}

const keyOfRequest = (i: number): string => String(fakes.openai.requests[i]?.headers.authorization).slice('Bearer '.length);
const upstreamModel = (i: number): string | undefined => (fakes.openai.requests[i]?.body as { model?: string } | undefined)?.model;
const keysUsed = (from: number): string[] => fakes.openai.requests.slice(from).map((_, i) => keyOfRequest(from + i));

function assertNoSecret(text: string, where: string): void {
  for (const secret of SECRETS) assert.ok(!text.includes(secret), `${where} holds a secret (${secret.slice(0, 8)}…)`);
}

describeEachMode(
  'live upstreams through the admin API',
  (ctx) => {
    const admin = async (method: string, path: string, body?: unknown) => {
      const answer = await ctx.gw.api(ADMIN_TOKEN, method, path, body);
      assertNoSecret(JSON.stringify(answer.body), `${method} ${path}`);
      return answer;
    };
    const chat = async (key: string, n: number): Promise<number[]> => {
      const statuses: number[] = [];
      for (let i = 0; i < n; i++) {
        const answer = await ctx.gw.api(key, 'POST', '/api/v1/chat/completions', { model: 'gpt-5.4', messages: [{ role: 'user', content: `hi ${i}` }], max_tokens: 10 });
        statuses.push(answer.status);
      }
      return statuses;
    };

    beforeEach(() => {
      fakes.reset();
      fakes.openai.respondWith(undefined);
      fakes.openai.moreKeys.clear();
      for (const key of SECRETS.slice(0, 3)) fakes.openai.moreKeys.add(key);
    });

    test('a provider with two weighted keys is added and routed live; the keys share the traffic 3:1 and show only as hints', async () => {
      const { key } = await ctx.gw.createUser(500);
      const put = await admin('PUT', '/admin/v1/providers/pool', {
        type: 'openai',
        baseUrl: fakes.openai.baseUrl,
        timeoutMs: 5000,
        options: { headers: { 'x-upstream-auth': OPTION_SECRET } },
        keys: [{ secret: KEY_A, weight: 3, label: 'primary' }, { secret: KEY_B, weight: 1 }],
        expectedVersion: 0,
      });
      assert.equal(put.status, 200, JSON.stringify(put.body));
      const provider = put.body as ProviderView;
      assert.equal(provider.source, 'live');
      assert.equal(provider.version, 1);
      assert.deepEqual(provider.keys.map((k) => [k.hint, k.weight, k.state]), [['sk-…1111', 3, 'healthy'], ['sk-…2222', 1, 'healthy']]);
      assert.notEqual((provider.options.headers as Record<string, string>)['x-upstream-auth'], OPTION_SECRET);

      const route = await admin('PUT', '/admin/v1/routes/gpt-5.4', { entries: [{ provider: 'pool', model: 'gpt-pool' }] });
      assert.equal(route.status, 200, JSON.stringify(route.body));
      const requests = 200;
      assert.deepEqual(new Set(await chat(key, requests)), new Set([200]));
      const used = keysUsed(0);
      assert.equal(used.length, requests);
      assert.ok(fakes.openai.requests.every((r) => (r.body as { model: string }).model === 'gpt-pool'), 'the live route names the upstream model');
      assert.ok(fakes.openai.requests.every((r) => r.headers['x-upstream-auth'] === OPTION_SECRET), 'a sealed option reaches the upstream opened');
      const a = used.filter((k) => k === KEY_A).length;
      assert.equal(a + used.filter((k) => k === KEY_B).length, requests);
      // 3:1 of 200 is 150; the chance of falling outside 125..175 is below 1e-4.
      assert.ok(a >= 125 && a <= 175, `key A served ${a} of ${requests}`);

      const shown = (await admin('GET', '/admin/v1/routes/gpt-5.4')).body as RouteView;
      assert.equal(shown.source, 'live');
      assert.equal(shown.entries[0]?.callsLastHour, requests);
      assert.equal(shown.entries[0]?.share, 1);
      const audit = (await admin('GET', '/admin/v1/audit?limit=10')).body as { data: Array<{ subjectKind: string; subject: string; action: string; actor: string; after: unknown }> };
      assert.deepEqual(audit.data.slice(0, 2).map((e) => [e.subjectKind, e.subject, e.action, e.actor]), [['route', 'gpt-5.4', 'put', 'admin-token'], ['provider', 'pool', 'put', 'admin-token']]);
    });

    test('rotation: a key added and the old ones switched off while requests run, with no failed request', async () => {
      const { key } = await ctx.gw.createUser(500);
      const provider = (await admin('GET', '/admin/v1/providers/pool')).body as ProviderView;
      const running = chat(key, 60);
      const added = await admin('POST', '/admin/v1/providers/pool/keys', { secret: KEY_C, label: 'next' });
      assert.equal(added.status, 200, JSON.stringify(added.body));
      const newKey = added.body as KeyView;
      assert.equal(newKey.hint, 'sk-…3333');
      for (const old of provider.keys) assert.equal((await admin('PATCH', `/admin/v1/providers/pool/keys/${old.id}`, { enabled: false })).status, 200);
      const before = fakes.openai.requests.length;
      assert.deepEqual(new Set(await running), new Set([200]), 'no request failed during the rotation');
      // The old key is revoked at the vendor; only the new one serves from now on.
      fakes.openai.moreKeys.delete(KEY_A);
      fakes.openai.moreKeys.delete(KEY_B);
      assert.deepEqual(new Set(await chat(key, 20)), new Set([200]));
      assert.deepEqual(new Set(keysUsed(Math.max(before, fakes.openai.requests.length - 20))), new Set([KEY_C]));
      const after = (await admin('GET', '/admin/v1/providers/pool')).body as ProviderView;
      assert.deepEqual(after.keys.map((k) => [k.hint, k.enabled, k.state]), [['sk-…1111', false, 'disabled'], ['sk-…2222', false, 'disabled'], ['sk-…3333', true, 'healthy']]);
    });

    test('a key the upstream refuses (401) is disabled and the other key serves with no client error; switched on again, it serves', async () => {
      const { key } = await ctx.gw.createUser(500);
      const provider = (await admin('GET', '/admin/v1/providers/pool')).body as ProviderView;
      const [keyA, keyB, keyC] = provider.keys;
      assert.ok(keyA && keyB && keyC);
      // KEY_A was revoked at the vendor; switched on again here by mistake, its first call is refused.
      fakes.openai.moreKeys.delete(KEY_A);
      await admin('PATCH', `/admin/v1/providers/pool/keys/${keyA.id}`, { enabled: true, weight: 5 });
      assert.deepEqual(new Set(await chat(key, 30)), new Set([200]), 'the client never sees the refused key');
      const shown = (await admin('GET', '/admin/v1/providers/pool')).body as ProviderView;
      const a = shown.keys.find((k) => k.id === keyA.id);
      assert.equal(a?.state, 'disabled');
      assert.match(String(a?.disabledReason), /refused the key/);
      fakes.openai.moreKeys.add(KEY_A);
      await admin('PATCH', `/admin/v1/providers/pool/keys/${keyA.id}`, { enabled: true });
      const from = fakes.openai.requests.length;
      assert.deepEqual(new Set(await chat(key, 30)), new Set([200]));
      assert.ok(keysUsed(from).includes(KEY_A), 'the key serves again once switched on');
    });

    test('testing a provider calls each key once, says what failed in words, disables a refused key and brings a passing one back', async () => {
      fakes.openai.moreKeys.delete(KEY_C);
      const first = await admin('POST', '/admin/v1/providers/pool/test');
      assert.equal(first.status, 200, JSON.stringify(first.body));
      const results = (first.body as { data: Array<{ hint: string; ok: boolean; call: string; error: string | null; status?: number; state: string; latencyMs: number }> }).data;
      assert.deepEqual(results.map((r) => [r.hint, r.ok, r.call]), [['sk-…1111', true, 'GET /v1/models'], ['sk-…2222', true, 'GET /v1/models'], ['sk-…3333', false, 'GET /v1/models']]);
      assert.equal(results[2]?.status, 401);
      assert.match(String(results[2]?.error), /refused|401/);
      assert.equal(results[2]?.state, 'disabled');
      assert.equal(results[1]?.state, 'disabled', "a key the operator switched off stays off, whatever the test says");
      assert.ok(results.every((r) => Number.isInteger(r.latencyMs) && r.latencyMs >= 0));
      assert.equal(fakes.openai.requests.filter((r) => r.path === '/v1/models').length, 3, 'one call per key');
      fakes.openai.moreKeys.add(KEY_C);
      const second = (await admin('POST', '/admin/v1/providers/pool/test')).body as { data: Array<{ ok: boolean; state: string }> };
      assert.deepEqual(second.data.map((r) => [r.ok, r.state]), [[true, 'healthy'], [true, 'disabled'], [true, 'healthy']]);
      assert.equal((await admin('POST', '/admin/v1/providers/nosuch/test')).status, 404);
    });

    test('versions guard every change; bad settings are refused as the config file refuses them, naming the field', async () => {
      const current = (await admin('GET', '/admin/v1/providers/pool')).body as ProviderView;
      const stale = await admin('PATCH', '/admin/v1/providers/pool', { enabled: false, expectedVersion: (current.version ?? 0) - 1 });
      assert.equal(stale.status, 409);
      assert.equal((stale.body as { error: { code: string } }).error.code, 'version_conflict');
      const cases: Array<[string, string, unknown, string]> = [
        ['PUT', '/admin/v1/providers/bad', { type: 'nosuchstyle', baseUrl: 'http://127.0.0.1:1' }, 'type'],
        ['PUT', '/admin/v1/providers/bad', { type: 'openai' }, 'baseUrl'],
        ['PUT', '/admin/v1/providers/bad', { type: 'openai', baseUrl: 'ftp://x' }, 'baseUrl'],
        ['PUT', '/admin/v1/providers/bad', { type: 'openai', baseUrl: 'http://127.0.0.1:1', keys: [{ secret: 'sk-a\r\nx-injected: 1' }] }, 'keys[0].secret'],
        ['PUT', '/admin/v1/providers/bad', { type: 'openai', baseUrl: 'http://127.0.0.1:1', keys: [{ id: 'upk_nosuchkey0000' }] }, 'keys[0].id'],
        ['PUT', '/admin/v1/providers/bad', { type: 'openai', baseUrl: 'http://127.0.0.1:1', colour: 'red' }, 'colour'],
        ['PUT', '/admin/v1/routes/gpt-5.4', { entries: [{ provider: 'nosuch' }] }, 'entries[0]'],
        ['PUT', '/admin/v1/routes/gpt-5.4', { entries: [] }, 'entries'],
        ['PUT', '/admin/v1/routes/gpt-5.4', { entries: [{ provider: 'pool', weight: 0 }] }, 'entries[0].weight'],
        ['PUT', '/admin/v1/models/gpt-5.4', { inputPrice: 'free' }, 'inputPrice'],
        ['POST', '/admin/v1/providers/pool/keys', { secret: ' padded ' }, 'secret'],
      ];
      for (const [method, path, body, param] of cases) {
        const answer = await admin(method, path, body);
        assert.equal(answer.status, 400, `${method} ${path} ${JSON.stringify(body)} → ${answer.status} ${JSON.stringify(answer.body)}`);
        assert.equal((answer.body as { error: { param?: string } }).error.param, param, JSON.stringify(answer.body));
      }
      assert.equal((await admin('PUT', '/admin/v1/routes/no-such-model', { entries: ['pool'] })).status, 404);
      assert.equal((await admin('GET', '/admin/v1/providers/bad')).status, 404, 'nothing refused was stored');
      assert.equal(((await admin('GET', '/admin/v1/providers/pool')).body as ProviderView).version, current.version, 'a refused change changes nothing');
    });

    test('export gives the live state without a secret; importing it unchanged keeps every key and sealed option; a foreign key id is reported, not invented', async () => {
      const { key } = await ctx.gw.createUser(100);
      const exported = await admin('GET', '/admin/v1/upstreams/export');
      assert.equal(exported.status, 200);
      assert.match(String(exported.headers.get('content-disposition')), /attachment/);
      const file = exported.body as { providers: Record<string, { keys: Array<{ id: string; hint: string }>; options: Record<string, unknown> }>; routes: Record<string, unknown> };
      assert.deepEqual(file.providers.pool?.keys.map((k) => k.hint), ['sk-…1111', 'sk-…2222', 'sk-…3333']);
      assert.ok(file.routes['gpt-5.4']);
      // The CLI shows what the gateway serves, live providers included, keys as hints.
      const cli = spawnSync(process.execPath, ['src/main.ts', 'providers'], { env: { ...process.env, ...ctx.gw.env }, encoding: 'utf8' });
      assert.equal(cli.status, 0, cli.stderr);
      assertNoSecret(cli.stdout + cli.stderr, 'the CLI');
      const listed = JSON.parse(cli.stdout) as Array<{ name: string; source: string; keys: Array<{ hint: string }>; routes: string[] }>;
      assert.deepEqual(listed.find((p) => p.name === 'pool')?.keys.map((k) => k.hint), ['sk-…1111', 'sk-…2222', 'sk-…3333']);
      assert.deepEqual(listed.find((p) => p.name === 'pool')?.routes, ['gpt-5.4']);
      const imported = await admin('POST', '/admin/v1/upstreams/import', file);
      assert.equal(imported.status, 200, JSON.stringify(imported.body));
      assert.deepEqual(imported.body, { providers: 1, routes: 1, models: 0, missingKeys: [] });
      const from = fakes.openai.requests.length;
      assert.deepEqual(new Set(await chat(key, 10)), new Set([200]));
      assert.ok(fakes.openai.requests.slice(from).every((r) => r.headers['x-upstream-auth'] === OPTION_SECRET), 'the sealed option survived the round trip');
      // A hint where a secret option should be is refused, and nothing changes.
      const hinted = structuredClone(file);
      (hinted.providers.pool as { options: Record<string, unknown> }).options = { headers: { 'x-upstream-auth': '…' }, extra: 1 };
      const refused = await admin('POST', '/admin/v1/upstreams/import', hinted);
      assert.equal(refused.status, 400, JSON.stringify(refused.body));
      assert.equal((refused.body as { error: { param?: string } }).error.param, 'providers.pool.options.headers');
      // A file from elsewhere: its keys are ids this gateway does not hold.
      const foreign = structuredClone(file);
      (foreign.providers.pool as { keys: Array<{ id: string }> }).keys = [{ id: 'upk_01jforeign0000000000000000' }, { id: String(file.providers.pool?.keys[2]?.id) }];
      const partial = await admin('POST', '/admin/v1/upstreams/import', foreign);
      assert.equal(partial.status, 200, JSON.stringify(partial.body));
      assert.deepEqual((partial.body as { missingKeys: string[] }).missingKeys, ['pool/upk_01jforeign0000000000000000']);
      assert.deepEqual(((await admin('GET', '/admin/v1/providers/pool')).body as ProviderView).keys.map((k) => k.hint), ['sk-…3333']);
      const audit = (await admin('GET', '/admin/v1/audit?limit=1')).body as { data: Array<{ subjectKind: string; action: string }> };
      assert.deepEqual([audit.data[0]?.subjectKind, audit.data[0]?.action], ['import', 'import']);
      assert.deepEqual(new Set(await chat(key, 5)), new Set([200]));
    });

    test('a provider in a live route cannot be deleted; once the route is gone it can, and the model is served as before', async () => {
      const { key } = await ctx.gw.createUser(100);
      const inUse = await admin('DELETE', '/admin/v1/providers/pool');
      assert.equal(inUse.status, 409, JSON.stringify(inUse.body));
      assert.equal((await admin('DELETE', '/admin/v1/routes/gpt-5.4')).status, 200);
      assert.equal((await admin('DELETE', '/admin/v1/providers/pool')).status, 200);
      assert.equal((await admin('GET', '/admin/v1/providers/pool')).status, 404);
      const from = fakes.openai.requests.length;
      assert.deepEqual(await chat(key, 1), [200]);
      assert.notEqual(upstreamModel(from), 'gpt-pool', 'the file route serves again');
      // A provider of the config file cannot be deleted here, only switched off.
      assert.equal((await admin('DELETE', '/admin/v1/providers/oa')).status, 409);
    });

    test('a provider of the config file switched off live is skipped by its route; its key is kept as `file`', async () => {
      const { key } = await ctx.gw.createUser(100);
      const off = await admin('PATCH', '/admin/v1/providers/oa-primary', { enabled: false });
      assert.equal(off.status, 200, JSON.stringify(off.body));
      const shown = off.body as ProviderView;
      assert.equal(shown.source, 'live');
      assert.deepEqual(shown.keys.map((k) => k.id), ['file']);
      await admin('PUT', '/admin/v1/routes/gpt-5.4', { entries: [{ provider: 'oa-primary', model: 'm-primary' }, { provider: 'oa-backup', model: 'm-backup' }] });
      const from = fakes.openai.requests.length;
      assert.deepEqual(new Set(await chat(key, 5)), new Set([200]));
      assert.deepEqual(new Set(fakes.openai.requests.slice(from).map((r) => (r.body as { model: string }).model)), new Set(['m-backup']));
      await admin('PATCH', '/admin/v1/providers/oa-primary', { enabled: true });
      const back = fakes.openai.requests.length;
      assert.deepEqual(await chat(key, 1), [200]);
      assert.equal(upstreamModel(back), 'm-primary');
      await admin('DELETE', '/admin/v1/routes/gpt-5.4');
      await admin('DELETE', '/admin/v1/providers/oa-primary');
    });

    test('a route entry that costs more than the price is flagged, and no failover moves a request onto it unless allowed', async () => {
      const { key } = await ctx.gw.createUser(100);
      fakes.openai.respondWith((body) => ((body as { model: string }).model === 'm-down' ? { error: { status: 503, message: 'Overloaded.' } } : undefined));
      const entries = (allowLoss: boolean) => [
        { provider: 'oa', model: 'm-down', priority: 0 },
        // gpt-5.4 sells at well under $1,000 per 1M tokens: this entry loses money on every token.
        { provider: 'oa-backup', model: 'm-loss', priority: 1, cost: { inputPrice: '1000', outputPrice: '1000' }, allowLoss },
        { provider: 'oa-primary', model: 'm-reserve', priority: 2, cost: { inputPrice: '0.01', outputPrice: '0.01' } },
      ];
      const put = await admin('PUT', '/admin/v1/routes/gpt-5.4', { entries: entries(false) });
      assert.equal(put.status, 200, JSON.stringify(put.body));
      assert.deepEqual((put.body as { entries: Array<{ model: string; atLoss: boolean }> }).entries.map((e) => [e.model, e.atLoss]), [['m-down', false], ['m-loss', true], ['m-reserve', false]]);
      const from = fakes.openai.requests.length;
      assert.deepEqual(await chat(key, 1), [200]);
      assert.deepEqual(fakes.openai.requests.slice(from).map((r) => (r.body as { model: string }).model), ['m-down', 'm-reserve']);
      await admin('PUT', '/admin/v1/routes/gpt-5.4', { entries: entries(true) });
      const allowed = fakes.openai.requests.length;
      // m-down cools after its failure, so the loss entry, now allowed, is the first healthy one.
      assert.deepEqual(await chat(key, 1), [200]);
      assert.deepEqual(fakes.openai.requests.slice(allowed).map((r) => (r.body as { model: string }).model), ['m-loss']);
      const refused = await admin('PUT', '/admin/v1/routes/gpt-5.4', { entries: [{ provider: 'oa', cost: { inputPrice: 'cheap' } }] });
      assert.equal((refused.body as { error: { param?: string } }).error.param, 'entries[0].cost.inputPrice');
      await admin('DELETE', '/admin/v1/routes/gpt-5.4');
    });

    test('a media task never fails over onto a route that costs more than the request pays', async () => {
      const { key } = await ctx.gw.createUser(100);
      const catalog = (await ctx.gw.api(undefined, 'GET', '/api/v1/catalog/z-image-turbo')).body as { pricing: Array<{ key: string; price: string }> };
      const tier = catalog.pricing[0];
      assert.ok(tier);
      for (const [name, options] of [['flaky', { failureRate: 1, latencyMs: 5 }], ['lossy', { latencyMs: 5 }], ['cheap', { latencyMs: 5 }]] as const) {
        assert.equal((await admin('PUT', `/admin/v1/providers/${name}`, { type: 'local', options })).status, 200);
      }
      const route = await admin('PUT', '/admin/v1/routes/z-image-turbo', {
        entries: [
          { provider: 'flaky', priority: 0 },
          { provider: 'lossy', priority: 1, cost: { pricing: [{ key: tier.key, price: '100' }] } },
          { provider: 'cheap', priority: 2, cost: { pricing: [{ key: tier.key, price: '0.000001' }] } },
        ],
      });
      assert.equal(route.status, 200, JSON.stringify(route.body));
      assert.deepEqual((route.body as { entries: Array<{ atLoss: boolean }> }).entries.map((e) => e.atLoss), [false, true, false]);
      const created = await ctx.gw.api(key, 'POST', '/api/v1/generation/create', { model: 'z-image-turbo', input: { prompt: 'no loss' } });
      assert.equal(created.status, 200, JSON.stringify(created.body));
      const taskId = (created.body as { data: { taskId: string } }).data.taskId;
      let detail: { status: string; attempts: Array<{ provider: string }> } | undefined;
      for (const deadline = Date.now() + 20_000; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 50))) {
        detail = ((await ctx.gw.api(key, 'GET', `/api/v1/generation/${taskId}`)).body as { data: typeof detail }).data;
        if (detail?.status === 'finished' || detail?.status === 'failed') break;
      }
      assert.equal(detail?.status, 'finished');
      assert.deepEqual(detail?.attempts.map((a) => a.provider), ['flaky', 'cheap']);
      await admin('DELETE', '/admin/v1/routes/z-image-turbo');
      for (const name of ['flaky', 'lossy', 'cheap']) await admin('DELETE', `/admin/v1/providers/${name}`);
    });

    test('a price changed through the admin API is shown and charged for new requests at once; a request held before it settles at the prices it was held at; hidden, a model is gone', async () => {
      const { key, userId } = await ctx.gw.createUser(100);
      const usage = { input: 1000, output: 500 };
      const old = await prices(ctx.gw, key, 'gpt-5.4-mini');
      fakes.openai.enqueue({ text: 'before', usage, delayMs: 400 });
      const client = openAiClient(ctx.gw, key);
      const first = client.chat.completions.create({ model: 'gpt-5.4-mini', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 600 });
      for (const deadline = Date.now() + 5000; (await heldMicro(ctx.gw, userId)) === 0; ) {
        assert.ok(Date.now() < deadline, 'the hold was taken');
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      const put = await admin('PUT', '/admin/v1/models/gpt-5.4-mini', { inputPrice: '7.5', outputPrice: '45', expectedVersion: 0 });
      assert.equal(put.status, 200, JSON.stringify(put.body));
      assert.deepEqual((put.body as { source: string; version: number }).source, 'live');
      const now = await prices(ctx.gw, key, 'gpt-5.4-mini');
      assert.deepEqual([now.input, now.output], [7_500_000n, 45_000_000n]);
      await assertSettled(ctx.gw, userId, (await first).id, expectedCost(old, usage));
      fakes.openai.enqueue({ text: 'after', usage });
      const second = await client.chat.completions.create({ model: 'gpt-5.4-mini', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 600 });
      await assertSettled(ctx.gw, userId, second.id, expectedCost(now, usage));

      assert.equal((await admin('PUT', '/admin/v1/models/gpt-5.4-mini', { hidden: true, expectedVersion: 1 })).status, 200);
      const listed = (await ctx.gw.api(key, 'GET', '/api/v1/models')).body as { data: Array<{ id: string }> };
      assert.ok(!listed.data.some((m) => m.id === 'gpt-5.4-mini'), 'a hidden model is not listed');
      const refused = await ctx.gw.api(key, 'POST', '/api/v1/chat/completions', { model: 'gpt-5.4-mini', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 10 });
      assert.equal(refused.status, 400, JSON.stringify(refused.body));
      assert.match(JSON.stringify(refused.body), /model/);
      assert.equal((await admin('DELETE', '/admin/v1/models/gpt-5.4-mini')).status, 200);
      const back = await prices(ctx.gw, key, 'gpt-5.4-mini');
      assert.deepEqual([back.input, back.output], [old.input, old.output], "the config file's prices serve again");
      assert.deepEqual(await verifyLedger(ctx.gw.gateway.services.database.db), []);
    });

    test('no secret reached a log line', () => {
      assert.ok(logLines.length > 0);
      assertNoSecret(logLines.join('\n'), 'the log');
    });
  },
  { configFile: fakes.config, logLines },
);
