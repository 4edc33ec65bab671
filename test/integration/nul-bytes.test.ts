/**
 * Issue 29, item 15: a NUL character in an id, a parameter or any text of a JSON body is a 400 naming
 * where it is, on both engines. PostgreSQL text cannot hold one (those requests were 500s there) and
 * SQLite stored it, so the rule is at the edge, before any route reads the request.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachMode } from '../support/gateway.ts';

type Answer = { status: number; body: { error?: { code?: string; param?: string; message?: string; type?: string } } };

describeEachMode('NUL characters are refused at the edge', (ctx) => {
  async function send(key: string, method: string, path: string, body?: string): Promise<Answer> {
    const res = await fetch(ctx.gw.url + path, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body } : {}),
    });
    return { status: res.status, body: (await res.json()) as Answer['body'] };
  }

  test('in a JSON body: 400 naming the field, nothing stored', async () => {
    const { userId, key } = await ctx.gw.createUser(1000);
    const cases: Array<[string, string, string, string]> = [
      ['POST', '/api/v1/keys', JSON.stringify({ name: 'ci\u0000key' }), 'name'],
      ['POST', '/api/v1/agent/conversations', JSON.stringify({ title: 'plans\u0000' }), 'title'],
      ['POST', '/api/v1/generation/create', JSON.stringify({ model: 'z-image-turbo', input: { prompt: 'a fox\u0000' } }), 'input.prompt'],
      ['POST', '/api/v1/generation/estimate', JSON.stringify({ model: 'z-image-turbo', input: { prompt: 'x', 'si\u0000ze': '1:1' } }), 'a field name in input'],
      ['POST', '/api/v1/auth/login', JSON.stringify({ email: 'someone\u0000@example.com', password: 'a long password' }), 'email'],
    ];
    for (const [method, path, body, param] of cases) {
      const res = await send(key, method, path, body);
      assert.equal(res.status, 400, `${path}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.error?.code, 'invalid_input', path);
      assert.equal(res.body.error?.param, param, path);
      assert.match(res.body.error?.message ?? '', /NUL character/, path);
    }
    const db = ctx.gw.gateway.services.database.db;
    const keys = await db.selectFrom('api_keys').select('name').where('user_id', '=', userId).execute();
    assert.ok(keys.every((k) => !k.name?.includes('\u0000')), 'no key was made with the NUL');
    const tasks = await db.selectFrom('tasks').select('id').where('user_id', '=', userId).execute();
    assert.equal(tasks.length, 0);
    // A backslash followed by "u0000" is six ordinary characters, not a NUL.
    const literal = await send(key, 'POST', '/api/v1/keys', JSON.stringify({ name: 'ci\\u0000key' }));
    assert.equal(literal.status, 200, JSON.stringify(literal.body));
  });

  test('in chat messages, on the chat lane and through Fastify alike, in the protocol\'s error shape', async () => {
    const { key } = await ctx.gw.createUser(100);
    const body = JSON.stringify({ model: 'gpt-5.4-mini', messages: [{ role: 'user', content: 'hello\u0000there' }] });
    // The first request looks the key up (Fastify); the second finds it cached (the chat lane).
    for (let i = 0; i < 2; i++) {
      const res = await send(key, 'POST', '/api/v1/chat/completions', body);
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.equal(res.body.error?.type, 'invalid_request_error');
      assert.equal(res.body.error?.param, 'messages[0].content');
    }
  });

  test('in a path or query parameter: 400 naming it', async () => {
    const { key } = await ctx.gw.createUser(100);
    const path = await fetch(`${ctx.gw.url}/api/v1/task/status/task_1%00x`, { headers: { authorization: `Bearer ${key}` } });
    assert.equal(path.status, 400);
    const pathBody = (await path.json()) as Answer['body'];
    assert.deepEqual([pathBody.error?.code, pathBody.error?.param], ['invalid_input', 'path']);
    for (const route of ['/api/v1/generations?cursor=abc%00', '/api/v1/agent/conversations/conv_1%00/messages', '/api/v1/keys/key%00']) {
      const res = await fetch(ctx.gw.url + route, { headers: { authorization: `Bearer ${key}` } });
      assert.equal(res.status, 400, route);
    }
    const query = (await (await fetch(`${ctx.gw.url}/api/v1/generations?limit=5&cursor=abc%00`, { headers: { authorization: `Bearer ${key}` } })).json()) as Answer['body'];
    assert.equal(query.error?.param, 'cursor');
    // Without a key too (nothing is looked up first).
    assert.equal((await fetch(`${ctx.gw.url}/api/v1/cost/z-image%00`)).status, 400);
  });
});
