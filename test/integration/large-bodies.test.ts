/**
 * Large JSON bodies (issue 17, item 11): a body over 1 MiB is parsed in the CPU pool and arrives whole
 * (a picture in base64, a long message), on the Fastify routes and on the chat lane alike; a body of
 * more values than any request holds (megabytes of tiny arrays) is a 400 in the route's error format,
 * where it used to hold the event loop for a second or more and then be accepted.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachMode } from '../support/gateway.ts';

const MB = 1024 * 1024;
const tinyArrays = (count: number) => `[${'[],'.repeat(count - 1)}[]]`;

describeEachMode('large JSON bodies', (ctx) => {
  async function post(key: string, path: string, body: string) {
    const res = await fetch(ctx.gw.url + path, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` }, body });
    return { status: res.status, json: (await res.json()) as Record<string, unknown> };
  }

  test('a body over 1 MiB arrives whole: a picture in base64 priced, a long message answered on both chat paths', async () => {
    const { key } = await ctx.gw.createUser(100_000);
    const text = 'word '.repeat((1.5 * MB) / 5);
    // The first call of a key goes through Fastify, the next through the chat lane.
    for (const path of ['fastify', 'lane']) {
      const res = await post(key, '/api/v1/chat/completions', JSON.stringify({ model: 'gpt-5.4-mini', max_completion_tokens: 16, messages: [{ role: 'user', content: text }] }));
      assert.equal(res.status, 200, `${path}: ${JSON.stringify(res.json).slice(0, 300)}`);
      assert.ok(Number((res.json.usage as { prompt_tokens: number }).prompt_tokens) > 100_000, `${path}: the whole message was read`);
    }
    const picture = `data:image/png;base64,${Buffer.alloc(3 * MB, 7).toString('base64')}`;
    const small = await post(key, '/api/v1/generation/estimate', JSON.stringify({ model: 'gpt-image-2', input: { prompt: 'a fox', urls: ['https://example.com/a.png'] } }));
    const large = await post(key, '/api/v1/generation/estimate', JSON.stringify({ model: 'gpt-image-2', input: { prompt: 'a fox', urls: [picture] } }));
    assert.equal(large.status, 200, JSON.stringify(large.json));
    assert.deepEqual(large.json, small.json, 'priced as the same request with a link');
  });

  test('megabytes of tiny arrays are a 400 in the route\'s error format, on every path', async () => {
    const { key } = await ctx.gw.createUser(1_000);
    const junk = tinyArrays((3 * MB) / 3);
    const chat = `{"model":"gpt-5.4-mini","messages":[{"role":"user","content":"hi"}],"metadata":${junk}}`;
    // A new key's first call goes through the Fastify route, later ones through the chat lane.
    const cases: Array<[string, string]> = [
      ['/api/v1/chat/completions', chat],
      ['/api/v1/generation/estimate', `{"model":"z-image-turbo","input":{"prompt":"a fox","junk":${junk}}}`],
      ['/api/v1/generation/create', `{"model":"z-image-turbo","input":{"prompt":"a fox","junk":${junk}}}`],
      ['/api/v1/chat/completions', chat],
      ['/api/v1/messages', `{"model":"claude-haiku-4-5","max_tokens":10,"messages":[{"role":"user","content":"hi"}],"metadata":${junk}}`],
    ];
    for (const [path, body] of cases) {
      const res = await post(key, path, body);
      assert.equal(res.status, 400, `${path}: ${JSON.stringify(res.json).slice(0, 300)}`);
      assert.match(JSON.stringify(res.json), /holds more than 100000 values/, path);
    }
    // Under 1 MiB the same rule holds on the event loop.
    const res = await post(key, '/api/v1/chat/completions', `{"model":"gpt-5.4-mini","messages":[{"role":"user","content":"hi"}],"metadata":${tinyArrays(150_000)}}`);
    assert.equal(res.status, 400);
    assert.equal((res.json.error as { code: string }).code, 'invalid_input');
  });
});
