/**
 * The chat lane (src/http/chat-lane.ts) answers the hot path of the text endpoints before Fastify.
 * These tests send the same requests down both paths (a query string sends a request to the Fastify
 * route) and require the same answers: success, the protocol's error objects, bad JSON, prototype
 * poisoning, a body over the limit, an insufficient balance; and that the lane really served them.
 */
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { after, beforeEach, test } from 'node:test';
import { startChatFakes } from '../support/chat-gateway.ts';
import { describeEachMode, type TestGateway } from '../support/gateway.ts';

const fakes = await startChatFakes();
after(() => fakes.close());

interface Answer {
  status: number;
  body: Record<string, unknown>;
  headers: Headers;
}

async function post(gw: TestGateway, path: string, key: string, body: string, headers: Record<string, string> = {}): Promise<Answer> {
  const res = await fetch(`${gw.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers }, body });
  return { status: res.status, body: (await res.json()) as Record<string, unknown>, headers: res.headers };
}

/** The lane's count of requests it served, from /metrics. */
async function laneServed(gw: TestGateway, route: string): Promise<number> {
  const text = await (await fetch(`${gw.url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`switchboard_chat_lane_requests_total{route="${route}"}`));
  return line ? Number(line.split(' ').at(-1)) : 0;
}

/** An error body without the parts that differ per request (ids). */
function comparable(answer: Answer): unknown {
  const body = structuredClone(answer.body) as { request_id?: unknown; error?: { request_id?: unknown } };
  delete body.request_id;
  return { status: answer.status, body, retryAfter: answer.headers.get('retry-after'), type: answer.headers.get('content-type') };
}

describeEachMode(
  'chat lane',
  (ctx) => {
    beforeEach(() => fakes.reset());

    test('the lane and the Fastify route answer alike, and the lane serves cached keys', async () => {
      // One cent: a short answer fits, 4,096 output tokens of GPT-5.4 mini (USD 0.018) do not.
      const { key } = await ctx.gw.createUser(1);
      const completions = '/api/v1/chat/completions';
      fakes.openai.setDefault({ text: 'Same answer.', usage: { input: 12, output: 3 } });
      // The first request looks the key up (the Fastify path); then the lane answers.
      const ok = JSON.stringify({ model: 'gpt-5.4-mini', messages: [{ role: 'user', content: 'hi' }], max_tokens: 20 });
      await post(ctx.gw, completions, key, ok);
      const before = await laneServed(ctx.gw, completions);

      const viaLane = await post(ctx.gw, completions, key, ok, { 'x-request-id': 'lane-req-1' });
      const viaFastify = await post(ctx.gw, `${completions}?via=fastify`, key, ok, { 'x-request-id': 'fastify-req-1' });
      assert.equal(viaLane.status, 200);
      assert.equal(viaLane.headers.get('x-request-id'), 'lane-req-1');
      assert.equal(viaFastify.headers.get('x-request-id'), 'fastify-req-1');
      assert.equal(viaLane.headers.get('content-type'), viaFastify.headers.get('content-type'));
      const shape = (a: Answer) => ({ ...a.body, id: typeof a.body.id, created: typeof a.body.created });
      assert.deepEqual(shape(viaLane), shape(viaFastify));

      const cases: Array<[string, string]> = [
        ['no messages', JSON.stringify({ model: 'gpt-5.4-mini' })],
        ['a media model', JSON.stringify({ model: 'sora-2', messages: [{ role: 'user', content: 'hi' }] })],
        ['bad JSON', '{"model":'],
        ['an empty body', ''],
        ['prototype poisoning', '{"model":"gpt-5.4-mini","messages":[{"role":"user","content":"hi"}],"__proto__":{"admin":true}}'],
        ['more than the balance holds', JSON.stringify({ model: 'gpt-5.4-mini', messages: [{ role: 'user', content: 'hi' }] })],
      ];
      for (const [what, body] of cases) {
        const lane = await post(ctx.gw, completions, key, body);
        const fastify = await post(ctx.gw, `${completions}?via=fastify`, key, body);
        assert.ok(lane.status >= 400, `${what}: refused`);
        assert.deepEqual(comparable(lane), comparable(fastify), what);
      }
      assert.equal(await laneServed(ctx.gw, completions), before + 1 + cases.length, 'the lane served every request without a query string');
    });

    test('the messages endpoint on the lane: Anthropic errors, x-api-key, a stream', async () => {
      const { key } = await ctx.gw.createUser(100);
      const messages = '/api/v1/messages';
      const headers = { 'x-api-key': key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' };
      const first = await fetch(`${ctx.gw.url}${messages}`, { method: 'POST', headers, body: JSON.stringify({ model: 'claude-sonnet-4-6', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }) });
      assert.equal(first.status, 200);
      const before = await laneServed(ctx.gw, messages);
      const bad = await fetch(`${ctx.gw.url}${messages}`, { method: 'POST', headers, body: JSON.stringify({ model: 'claude-sonnet-4-6', messages: [] }) });
      assert.equal(bad.status, 400);
      assert.equal(((await bad.json()) as { type: string }).type, 'error');
      const stream = await fetch(`${ctx.gw.url}${messages}`, { method: 'POST', headers, body: JSON.stringify({ model: 'claude-sonnet-4-6', max_tokens: 10, stream: true, messages: [{ role: 'user', content: 'hi' }] }) });
      assert.equal(stream.headers.get('content-type'), 'text/event-stream; charset=utf-8');
      assert.ok(stream.headers.get('x-request-id'));
      assert.match(await stream.text(), /event: message_stop/);
      assert.equal(await laneServed(ctx.gw, messages), before + 2);
    });

    test('a body declared larger than the limit is refused at once with 413, in the protocol shape', async () => {
      const { key } = await ctx.gw.createUser(100);
      await post(ctx.gw, '/api/v1/chat/completions', key, JSON.stringify({ model: 'gpt-5.4-mini', messages: [{ role: 'user', content: 'hi' }], max_tokens: 5 }));
      const url = new URL(`${ctx.gw.url}/api/v1/chat/completions`);
      const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = httpRequest(
          { host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-length': String(40 * 1024 * 1024) } },
          (res) => {
            let text = '';
            res.on('data', (chunk: Buffer) => {
              text += chunk.toString();
            });
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
          },
        );
        req.on('error', reject);
        req.write('{"model":');
      });
      assert.equal(answer.status, 413);
      assert.equal((JSON.parse(answer.body) as { error: { code: string } }).error.code, 'payload_too_large');
    });
  },
  { configFile: fakes.config },
);
