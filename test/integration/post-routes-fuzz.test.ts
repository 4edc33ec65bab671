/**
 * Issue 13's fuzz (bounded and seeded, in CI): deep, huge and malformed bodies to every POST, PUT and
 * PATCH route of the OpenAPI document, with a valid key and without one. No answer is a 5xx, and no
 * money moves: the user's balance and the ledger are unchanged afterwards.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { describeEachMode } from '../support/gateway.ts';

interface OpenApi {
  paths: Record<string, Record<string, unknown>>;
}

function rng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 4294967296;
  };
}

function bodies(r: () => number): string[] {
  const deep = 2_000 + Math.floor(r() * 4_000);
  const wide = Array.from({ length: 2_000 }, (_, i) => `"k${i}":${i}`).join(',');
  const junk = () => ['null', 'true', '1e400', '-0', '"x"', '[]', '{}', '"\\ud800"', '{"__proto__":{"a":1}}', '{"constructor":{"prototype":{}}}'][Math.floor(r() * 10)] ?? 'null';
  return [
    '['.repeat(deep) + ']'.repeat(deep),
    '{"a":'.repeat(deep) + '1' + '}'.repeat(deep),
    `{${wide}}`,
    `{"model":"${'m'.repeat(200_000)}","input":{"prompt":"${'p'.repeat(200_000)}"}}`,
    '{"model": "z-image-turbo", "input": ',
    'not json at all',
    '',
    junk(),
    `{"model":${junk()},"input":${junk()},"content":${junk()},"messages":${junk()},"expectedVersion":${junk()}}`,
    JSON.stringify({ model: 'gpt-5.4-mini', messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'http://10.0.0.1/x.png' } }] }], max_tokens: -1 }),
  ];
}

describeEachMode('fuzzed bodies to every write route', (ctx) => {
  test('no 5xx and no money moved, with a key and without', { timeout: 240_000 }, async () => {
    const spec = (await (await fetch(`${ctx.gw.url}/api/v1/openapi.json`)).json()) as OpenApi;
    const routes: Array<{ method: string; path: string }> = [];
    for (const [path, methods] of Object.entries(spec.paths)) {
      for (const method of Object.keys(methods)) {
        if (['post', 'put', 'patch'].includes(method)) routes.push({ method: method.toUpperCase(), path: path.replace(/\{[^}]+\}/g, 'x_1') });
      }
    }
    assert.ok(routes.length >= 25, `${routes.length} write routes`);
    const { key } = await ctx.gw.createUser(1000);
    const balance = async () => ((await (await fetch(`${ctx.gw.url}/api/v1/user/me`, { headers: { authorization: `Bearer ${key}` } })).json()) as { data: { balance: number } }).data.balance;
    const before = await balance();
    const r = rng(20261125);
    const failures: string[] = [];
    for (const route of routes) {
      for (const body of bodies(r)) {
        for (const auth of [true, false]) {
          const res = await fetch(ctx.gw.url + route.path, {
            method: route.method,
            headers: { 'content-type': 'application/json', ...(auth ? { authorization: `Bearer ${key}` } : {}) },
            body,
          }).catch((error: unknown) => ({ status: 0, error }));
          if (res.status >= 500 || res.status === 0) failures.push(`${route.method} ${route.path} ${auth ? 'key' : 'anonymous'} → ${res.status} for ${body.slice(0, 60)}`);
        }
      }
    }
    assert.deepEqual(failures, []);
    assert.equal(await balance(), before, 'no charge');
    const ledger = spawnSync(process.execPath, ['src/main.ts', 'ledger', 'verify'], { env: { ...process.env, ...ctx.gw.env }, encoding: 'utf8' });
    assert.equal(ledger.status, 0, ledger.stdout + ledger.stderr);
  });
});
