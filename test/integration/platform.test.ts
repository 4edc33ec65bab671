import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachMode } from '../support/gateway.ts';

describeEachMode('health, metrics and API documents', (ctx) => {
  test('/healthz and /readyz answer', async () => {
    assert.deepEqual((await ctx.gw.api(undefined, 'GET', '/healthz')).body, { status: 'ok' });
    const ready = await ctx.gw.api(undefined, 'GET', '/readyz');
    assert.equal(ready.status, 200);
    const checks = (ready.body as { checks: Record<string, string> }).checks;
    assert.equal(checks.database, 'ok');
    assert.equal(checks.storage, 'ok');
    if (ctx.gw.mode === 'scaleout') assert.equal(checks.redis, 'ok');
  });

  test('/metrics is Prometheus text with request counters by route pattern', async () => {
    await ctx.gw.api(undefined, 'GET', '/api/v1/catalog/sora-2');
    const res = await fetch(`${ctx.gw.url}/metrics`);
    assert.match(res.headers.get('content-type') ?? '', /text\/plain/);
    const text = await res.text();
    assert.match(text, /switchboard_http_requests_total\{method="GET",route="\/api\/v1\/catalog\/:id",status="200"\} \d+/);
    assert.match(text, /switchboard_http_request_duration_seconds_bucket/);
  });

  test('unknown routes and bad JSON get the error envelope', async () => {
    const missing = await ctx.gw.api(undefined, 'GET', '/api/v1/nothing-here');
    assert.equal(missing.status, 404);
    assert.equal((missing.body as { error: { code: string } }).error.code, 'not_found');
    const { key } = await ctx.gw.createUser(1);
    const bad = await fetch(`${ctx.gw.url}/api/v1/generation/estimate`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: '{"model": ',
    });
    assert.equal(bad.status, 400);
    assert.equal(((await bad.json()) as { error: { code: string } }).error.code, 'invalid_input');
  });

  test('the OpenAPI 3.1 document covers the public routes, and /docs renders it', async () => {
    const doc = (await ctx.gw.api(undefined, 'GET', '/api/v1/openapi.json')).body as {
      openapi: string;
      paths: Record<string, Record<string, { security: unknown[]; responses: Record<string, unknown> }>>;
    };
    assert.equal(doc.openapi, '3.1.0');
    for (const path of ['/api/v1/user/me', '/api/v1/generation/estimate', '/api/v1/catalog', '/api/v1/catalog/{id}', '/api/v1/cost', '/api/v1/cost/{model}', '/api/v1/models', '/admin/v1/users/{userId}/credits']) {
      assert.ok(doc.paths[path], `${path} documented`);
    }
    assert.deepEqual(doc.paths['/api/v1/catalog']?.get?.security, []);
    const estimate = doc.paths['/api/v1/generation/estimate']?.post as unknown as {
      requestBody: { content: { 'application/json': { schema: { oneOf: Array<{ properties: { model: { const: string }; input: { properties: Record<string, unknown>; additionalProperties: boolean } } }> } } } };
    };
    const alternatives = estimate.requestBody.content['application/json'].schema.oneOf;
    assert.equal(alternatives.length, 34, 'one body schema per media model');
    const sora = alternatives.find((a) => a.properties.model.const === 'sora-2');
    assert.ok(sora?.properties.input.properties.prompt, 'the input schema comes from the catalog family');
    assert.equal(sora?.properties.input.additionalProperties, false);
    assert.deepEqual(doc.paths['/api/v1/user/me']?.get?.security, [{ apiKey: [] }]);
    const html = await fetch(`${ctx.gw.url}/docs`);
    assert.equal(html.status, 200);
    const page = await html.text();
    assert.match(page, /<h1>Switchboard API/);
    assert.match(page, /\/api\/v1\/generation\/estimate/);
  });
});
