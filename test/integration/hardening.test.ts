/**
 * Hardening from the security probe (issue 13): deeply nested JSON is a 400 on every path (it was a
 * 500 wherever recursive code met it), a file URL without its name is a 404 (it was a 500), /metrics
 * needs a token (or this host), and a trickled request body is cut off (there was no time-out).
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { connect } from 'node:net';
import { test } from 'node:test';
import { metricsAllowed } from '../../src/http/routes/health.route.ts';
import { describeEachMode } from '../support/gateway.ts';

const nested = (depth: number, leaf = '1') => '['.repeat(depth) + leaf + ']'.repeat(depth);
const nestedObject = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);

describeEachMode('hardening: nesting and file paths', (ctx) => {
  async function post(path: string, body: string, key: string | undefined, headers: Record<string, string> = {}) {
    const res = await fetch(ctx.gw.url + path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers },
      body,
    });
    const text = await res.text();
    return { status: res.status, text };
  }

  test("deeply nested JSON gets a 400 in the route's error format, never a 500", async () => {
    const { key } = await ctx.gw.createUser(1000);
    const deep = 6_000;
    const cases: Array<[string, string, Record<string, string>]> = [
      ['/api/v1/generation/create', `{"model":"z-image-turbo","input":{"prompt":"x","extra":${nested(deep)}}}`, { 'idempotency-key': 'deep-1' }],
      ['/api/v1/generation/estimate', `{"model":"z-image-turbo","input":${nestedObject(deep)}}`, {}],
      ['/api/v1/chat/completions', `{"model":"gpt-5.4-mini","messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"f","parameters":${nestedObject(deep)}}}]}`, {}],
      ['/api/v1/chat/completions', `{"model":"gpt-5.4-mini","messages":[{"role":"user","content":"hi"}],"response_format":{"type":"json_schema","json_schema":{"name":"x","schema":${nestedObject(deep)}}}}`, {}],
      ['/api/v1/messages', `{"model":"claude-haiku-4-5","max_tokens":10,"messages":[{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"f","input":${nestedObject(deep)}}]},{"role":"user","content":"hi"}]}`, {}],
    ];
    for (const [path, body, headers] of cases) {
      const res = await post(path, body, key, headers);
      assert.equal(res.status, 400, `${path}: ${res.text.slice(0, 200)}`);
      assert.match(res.text, /nested deeper than/);
    }
    // Without a key the answer is the same 400 or a 401, never a 5xx.
    const anonymous = await post('/api/v1/auth/login', nestedObject(deep), undefined);
    assert.ok(anonymous.status === 400 || anonymous.status === 401, String(anonymous.status));
    // Ordinary nesting still works.
    const fine = await post('/api/v1/generation/estimate', JSON.stringify({ model: 'z-image-turbo', input: { prompt: 'a fox' } }), key);
    assert.equal(fine.status, 200, fine.text);
  });

  test('callers are checked before bodies are read; bodies have limits that fit their routes; echoed input is cut short', async () => {
    // No key: 401 before a byte of the (absurd) body is parsed.
    const anonymous = await post('/api/v1/generation/estimate', '['.repeat(2 * 1024 * 1024), undefined);
    assert.equal(anonymous.status, 401, anonymous.text.slice(0, 200));
    // The admin API checks its caller before validating the body.
    const admin = await fetch(`${ctx.gw.url}/admin/v1/users`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"balanceCents":"not a number"}' });
    assert.equal(admin.status, 401);
    // Sign-in and sign-up read a body before knowing the caller: a small one.
    const login = await post('/api/v1/auth/login', JSON.stringify({ email: 'a@b.c', password: 'x'.repeat(100_000) }), undefined);
    assert.equal(login.status, 413);
    // Other routes take 1 MiB; text and generations more (pictures as base64).
    const { key } = await ctx.gw.createUser(1000);
    const settings = await fetch(`${ctx.gw.url}/api/v1/agent/settings`, { method: 'PUT', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` }, body: JSON.stringify({ expectedVersion: 0, settings: { note: 'x'.repeat(2 * 1024 * 1024) } }) });
    assert.equal(settings.status, 413);
    // A 5 MB model name is not sent back whole.
    const huge = 'm'.repeat(5 * 1024 * 1024);
    const echoed = await post('/api/v1/generation/estimate', JSON.stringify({ model: huge, input: { prompt: 'x' } }), key);
    assert.ok(echoed.status >= 400 && echoed.status < 500, String(echoed.status));
    assert.ok(echoed.text.length < 3_000, `the answer is ${echoed.text.length} characters`);
  });

  test('a path segment too long for the router is a 414 in the standard error body, without the path', async () => {
    const { key } = await ctx.gw.createUser(1000);
    const long = `task_${'x'.repeat(300)}<script>`;
    const res = await fetch(`${ctx.gw.url}/api/v1/task/status/${long}`, { headers: { authorization: `Bearer ${key}` } });
    assert.equal(res.status, 414);
    assert.match(res.headers.get('content-type') ?? '', /application\/json/);
    assert.ok(res.headers.get('x-request-id'), 'the request id, as on every answer');
    const text = await res.text();
    assert.ok(!text.includes('xxxxxxxxxx') && !text.includes('script'), `the path is not echoed: ${text}`);
    const body = JSON.parse(text) as { code: number; error: { code: string; type: string; message: string }; requestId: string };
    assert.equal(body.code, 414);
    assert.equal(body.error.code, 'uri_too_long');
    assert.equal(body.requestId, res.headers.get('x-request-id'));
    const bad = await fetch(`${ctx.gw.url}/api/v1/task/status/%E0%A4%A`, { headers: { authorization: `Bearer ${key}` } });
    assert.equal(bad.status, 400);
    const badBody = (await bad.json()) as { error: { code: string; message: string } };
    assert.equal(badBody.error.code, 'invalid_input');
    assert.ok(!badBody.error.message.includes('%E0'), 'not echoed either');
  });

  test('/docs is sent with the dashboard\'s security headers and a policy that allows only its own style', async () => {
    const res = await fetch(`${ctx.gw.url}/docs`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(res.headers.get('x-frame-options'), 'DENY');
    assert.equal(res.headers.get('referrer-policy'), 'same-origin');
    const csp = res.headers.get('content-security-policy') ?? '';
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /frame-ancestors 'none'/);
    const html = await res.text();
    const style = /<style>([\s\S]*?)<\/style>/.exec(html)?.[1] ?? '';
    assert.ok(style.length > 0);
    assert.ok(csp.includes(`'sha256-${createHash('sha256').update(style).digest('base64')}'`), 'the page\'s own style is allowed, by hash');
    assert.ok(!/<script/i.test(html));
  });

  test('a file URL without its name, or a directory of the store, is a 404', async () => {
    for (const path of ['/files/abcdefghijklmnopqrstuvwxyz234567', '/files/abcdefghijklmnopqrstuvwxyz234567/', '/files/x']) {
      const res = await fetch(ctx.gw.url + path);
      assert.equal(res.status, 404, path);
    }
    // Also for a token directory that exists: make a file, then ask for its directory.
    const { key } = await ctx.gw.createUser(1000);
    const created = await post('/api/v1/generation/create', JSON.stringify({ model: 'z-image-turbo', input: { prompt: 'a fox', size: '1:1' } }), key);
    assert.equal(created.status, 200, created.text);
    const taskId = (JSON.parse(created.text) as { data: { taskId: string } }).data.taskId;
    let url: string | undefined;
    for (let i = 0; i < 200 && !url; i++) {
      const status = (await (await fetch(`${ctx.gw.url}/api/v1/task/status/${taskId}`, { headers: { authorization: `Bearer ${key}` } })).json()) as { data: { files?: Array<{ fileUrl: string }> } };
      url = status.data.files?.[0]?.fileUrl;
      if (!url) await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(url, 'the task finished');
    const directory = new URL(url).pathname.split('/').slice(0, 3).join('/');
    assert.equal((await fetch(ctx.gw.url + directory)).status, 404, directory);
  });
});

describeEachMode(
  'hardening: metrics token and request time-outs',
  (ctx) => {
    test('/metrics answers only with METRICS_TOKEN', async () => {
      assert.equal((await fetch(`${ctx.gw.url}/metrics`)).status, 401);
      assert.equal((await fetch(`${ctx.gw.url}/metrics`, { headers: { authorization: 'Bearer wrong-token-xyz' } })).status, 401);
      const ok = await fetch(`${ctx.gw.url}/metrics`, { headers: { authorization: 'Bearer metrics-token-123' } });
      assert.equal(ok.status, 200);
      assert.match(await ok.text(), /switchboard_http_requests_total/);
    });

    test('a request body trickled slower than the request time-out is cut off', async () => {
      const { port, hostname } = new URL(ctx.gw.url);
      const started = Date.now();
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = connect(Number(port), hostname, () => {
          socket.write('POST /api/v1/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"mo');
        });
        let received = '';
        socket.on('data', (chunk) => {
          received += chunk.toString();
        });
        socket.on('close', () => resolve(received));
        socket.on('error', reject);
        setTimeout(() => {
          socket.destroy();
          reject(new Error('the server kept the trickled request open'));
        }, 15_000);
      });
      assert.ok(Date.now() - started < 10_000, 'closed well before the test gave up');
      assert.match(answer, /^HTTP\/1\.1 408|^$/);
    });
  },
  { env: { METRICS_TOKEN: 'metrics-token-123', SWITCHBOARD_REQUEST_TIMEOUT_MS: '1500' } },
);

test('without METRICS_TOKEN, /metrics is for this host only', () => {
  assert.equal(metricsAllowed(undefined, undefined, '127.0.0.1'), true);
  assert.equal(metricsAllowed(undefined, undefined, '::1'), true);
  assert.equal(metricsAllowed(undefined, undefined, '203.0.113.5'), false);
  assert.equal(metricsAllowed('t0ken', 'Bearer t0ken', '203.0.113.5'), true);
  assert.equal(metricsAllowed('t0ken', undefined, '127.0.0.1'), false, 'a token, once set, is needed from anywhere');
});

describeEachMode(
  'hardening: URLs in generation inputs follow the address policy',
  (ctx) => {
    test('reference URLs to private, loopback or metadata addresses are refused at validation; the gateway\'s own files are not', async () => {
      const { key } = await ctx.gw.createUser(1000);
      const create = (urls: string[]) =>
        fetch(`${ctx.gw.url}/api/v1/generation/create`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
          body: JSON.stringify({ model: 'nano-banana-2', input: { prompt: 'a fox', urls } }),
        });
      for (const url of ['http://10.0.0.5/a.png', 'http://169.254.169.254/latest/meta-data', 'http://localhost:9/x.png', 'http://[::1]/x.png']) {
        const res = await create([url]);
        assert.equal(res.status, 400, url);
        const body = (await res.json()) as { error: { param?: string; message: string } };
        assert.equal(body.error.param, 'input.urls[0]', JSON.stringify(body));
      }
      const own = await create([`${ctx.gw.url}/files/abcdefghijklmnopqrstuvwxyz234567/ref.png`]);
      assert.equal(own.status, 200, await own.text());
      const publicUrl = await create(['https://example.com/fox.png']);
      assert.equal(publicUrl.status, 200, await publicUrl.text());
    });

    test('chat image_url and Anthropic image and document source URLs get the same policy, before anything is held or sent', async () => {
      const { userId, key } = await ctx.gw.createUser(100);
      const openai = (url: string) =>
        ctx.gw.api(key, 'POST', '/api/v1/chat/completions', {
          model: 'gpt-5.4-mini',
          messages: [{ role: 'user', content: [{ type: 'text', text: 'what is this?' }, { type: 'image_url', image_url: { url } }] }],
        });
      const anthropic = (block: Record<string, unknown>) =>
        ctx.gw.api(key, 'POST', '/api/v1/messages', { model: 'claude-haiku-4-5', max_tokens: 50, messages: [{ role: 'user', content: [block, { type: 'text', text: 'what is this?' }] }] });
      for (const url of ['http://169.254.169.254/latest/meta-data/iam/security-credentials/', 'http://10.0.0.5/x.png', 'http://localhost:8080/x.png', 'http://[fd00::1]/x.png']) {
        const chat = await openai(url);
        assert.equal(chat.status, 400, url);
        assert.match((chat.body as { error: { message: string } }).error.message, /is refused/, url);
        const image = await anthropic({ type: 'image', source: { type: 'url', url } });
        assert.equal(image.status, 400, url);
        assert.equal((image.body as { error: { type: string } }).error.type, 'invalid_request_error');
        const document = await anthropic({ type: 'document', source: { type: 'url', url } });
        assert.equal(document.status, 400, url);
      }
      const billing = (await ctx.gw.api(key, 'GET', '/api/v1/billing')).body as { data: { balanceMicroUsd: string } };
      assert.equal(billing.data.balanceMicroUsd, '1000000', 'nothing was charged');
      const rows = await ctx.gw.gateway.services.database.db.selectFrom('chat_requests').select('id').where('user_id', '=', userId).execute();
      assert.equal(rows.length, 0, 'no request was recorded, none reached an upstream');
      const own = await openai(`${ctx.gw.url}/files/abcdefghijklmnopqrstuvwxyz234567/ref.png`);
      assert.equal(own.status, 200, JSON.stringify(own.body));
      const publicUrl = await openai('https://example.com/cat.png');
      assert.equal(publicUrl.status, 200, JSON.stringify(publicUrl.body));
    });
  },
  { env: { SWITCHBOARD_ALLOW_PRIVATE_URLS: '0' } },
);
