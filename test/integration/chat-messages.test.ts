/**
 * POST /api/v1/messages through the official Anthropic SDK, against whole gateways (SQLite and
 * PostgreSQL): Claude on the fake Anthropic upstream, Claude routed to the fake OpenAI upstream
 * (translated both ways), tools, images, errors in Anthropic's shape, cut streams, failover across
 * protocols, and exact billing with cache reads and writes.
 */
import assert from 'node:assert/strict';
import { after, beforeEach, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import {
  anthropicClient,
  assertSettled,
  balanceMicro,
  expectedCost,
  latestRow,
  prices,
  startChatFakes,
  upstreamBody,
} from '../support/chat-gateway.ts';
import { describeEachMode } from '../support/gateway.ts';

const fakes = await startChatFakes();
after(() => fakes.close());

const PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
const weatherTool: Anthropic.Tool = {
  name: 'get_weather',
  description: 'Weather of a city',
  input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

describeEachMode(
  'messages (Anthropic SDK)',
  (ctx) => {
    beforeEach(() => fakes.reset());

    test('a Claude message on an Anthropic upstream: our model id, Anthropic usage, cache reads and writes billed exactly', async () => {
      const { key, userId } = await ctx.gw.createUser(100);
      fakes.anthropic.enqueue({ text: 'Hello from Claude.', model: 'claude-upstream-sonnet-20260101', usage: { input: 300, output: 42, cached: 200, cacheCreation: 50 } });
      const message = await anthropicClient(ctx.gw, key).messages.create({
        model: 'claude-sonnet-4-6',
        max_tokens: 256,
        system: [{ type: 'text', text: 'You are terse.', cache_control: { type: 'ephemeral' } }],
        messages: [{ role: 'user', content: 'Hi' }],
      });
      assert.equal(message.model, 'claude-sonnet-4-6');
      assert.deepEqual(message.content, [{ type: 'text', text: 'Hello from Claude.' }]);
      assert.equal(message.stop_reason, 'end_turn');
      assert.deepEqual(
        [message.usage.input_tokens, message.usage.cache_read_input_tokens, message.usage.cache_creation_input_tokens, message.usage.output_tokens],
        [300, 200, 50, 42],
      );
      const upstream = upstreamBody<{ model: string; system: unknown }>(fakes.anthropic, 0);
      assert.equal(upstream.model, 'claude-upstream-sonnet');
      assert.deepEqual(upstream.system, [{ type: 'text', text: 'You are terse.', cache_control: { type: 'ephemeral' } }]);
      // Every prompt token: 300 uncached + 200 cache reads + 50 cache writes (at the 5-minute cache-write price).
      const cost = expectedCost(await prices(ctx.gw, key, 'claude-sonnet-4-6'), { input: 550, output: 42, cached: 200, writes: 50 });
      const row = await assertSettled(ctx.gw, userId, message.id, cost);
      assert.deepEqual([row.protocol, row.input_tokens, row.cached_tokens, row.cache_creation_tokens], ['anthropic', 550, 200, 50]);
      assert.equal(await balanceMicro(ctx.gw, userId), 1_000_000 - cost);
    });

    test('any anthropic-version, the key as x-api-key or bearer', async () => {
      const { key } = await ctx.gw.createUser(100);
      const body = JSON.stringify({ model: 'claude-sonnet-4-6', max_tokens: 20, messages: [{ role: 'user', content: 'hi' }] });
      for (const auth of [{ 'x-api-key': key }, { authorization: `Bearer ${key}` }] as Array<Record<string, string>>) {
        fakes.anthropic.enqueue({ text: 'ok' });
        const res = await fetch(`${ctx.gw.url}/api/v1/messages`, { method: 'POST', headers: { ...auth, 'anthropic-version': '2099-12-31', 'content-type': 'application/json' }, body });
        assert.equal(res.status, 200);
        assert.equal(((await res.json()) as { type: string }).type, 'message');
      }
      const denied = await fetch(`${ctx.gw.url}/api/v1/messages`, { method: 'POST', headers: { 'x-api-key': 'sb_wrong', 'content-type': 'application/json' }, body });
      assert.equal(denied.status, 401);
      const error = (await denied.json()) as { type: string; error: { type: string; code: string }; request_id: string };
      assert.deepEqual([error.type, error.error.type, error.error.code], ['error', 'authentication_error', 'unauthorized']);
      assert.ok(error.request_id);
    });

    test('streamed tool use with input_json deltas, then the tool result round trip', async () => {
      const { key, userId } = await ctx.gw.createUser(100);
      const client = anthropicClient(ctx.gw, key);
      fakes.anthropic.enqueue(
        { text: 'Let me check.', toolCalls: [{ id: 'toolu_w1', name: 'get_weather', arguments: { city: 'Paris', days: 2 } }] },
        { text: 'Sunny, 21 °C.' },
      );
      const stream = client.messages.stream({ model: 'claude-sonnet-4-6', max_tokens: 300, tools: [weatherTool], messages: [{ role: 'user', content: 'Weather in Paris?' }] });
      const partials: string[] = [];
      stream.on('inputJson', (partial) => partials.push(partial));
      const first = await stream.finalMessage();
      assert.equal(first.model, 'claude-sonnet-4-6');
      assert.equal(first.stop_reason, 'tool_use');
      const toolUse = first.content.find((b) => b.type === 'tool_use');
      assert.ok(toolUse?.type === 'tool_use');
      assert.deepEqual(toolUse.input, { city: 'Paris', days: 2 });
      assert.ok(partials.length > 1, 'input arrived in several deltas');

      const second = await client.messages.create({
        model: 'claude-sonnet-4-6',
        max_tokens: 300,
        tools: [weatherTool],
        messages: [
          { role: 'user', content: 'Weather in Paris?' },
          { role: 'assistant', content: first.content },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: toolUse.id, content: '{"temp":21}' }] },
        ],
      });
      assert.deepEqual(second.content, [{ type: 'text', text: 'Sunny, 21 °C.' }]);
      const sent = fakes.anthropic.requests[1]?.body as { messages: Array<{ role: string; content: Array<{ type: string; tool_use_id?: string }> }> };
      assert.equal(sent.messages[2]?.content[0]?.tool_use_id, 'toolu_w1');
      await assertSettled(ctx.gw, userId, second.id, (await latestRow(ctx.gw, userId)).cost_micro);
    });

    test('an Anthropic client on a Claude model routed to an OpenAI upstream: images, tools and usage translated', async () => {
      const { key, userId } = await ctx.gw.createUser(100);
      const client = anthropicClient(ctx.gw, key);
      fakes.openai.enqueue({ text: 'A cat and a dot.', usage: { input: 120, output: 6, cached: 20 } });
      const message = await client.messages.create({
        model: 'claude-haiku-4-5',
        max_tokens: 100,
        system: 'Describe images.',
        messages: [
          {
            role: 'user',
            content: [
              { type: 'image', source: { type: 'url', url: 'https://example.com/cat.jpg' } },
              { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG_BASE64 } },
              { type: 'text', text: 'What is this?' },
            ],
          },
        ],
      });
      assert.equal(message.model, 'claude-haiku-4-5');
      assert.deepEqual(message.content, [{ type: 'text', text: 'A cat and a dot.' }]);
      // Anthropic counts input without cache reads.
      assert.deepEqual([message.usage.input_tokens, message.usage.cache_read_input_tokens, message.usage.output_tokens], [100, 20, 6]);
      const upstream = fakes.openai.requests[0]?.body as { model: string; max_tokens: number; messages: Array<{ role: string; content: unknown }> };
      assert.equal(upstream.model, 'haiku-on-openai');
      assert.equal(upstream.max_tokens, 100);
      assert.deepEqual(upstream.messages[0], { role: 'system', content: 'Describe images.' });
      const parts = upstream.messages[1]?.content as Array<{ type: string; image_url?: { url: string } }>;
      assert.deepEqual(parts.map((p) => p.image_url?.url ?? p.type), ['https://example.com/cat.jpg', `data:image/png;base64,${PNG_BASE64}`, 'text']);
      await assertSettled(ctx.gw, userId, message.id, expectedCost(await prices(ctx.gw, key, 'claude-haiku-4-5'), { input: 120, output: 6, cached: 20 }));

      fakes.openai.enqueue({ toolCalls: [{ id: 'call_9', name: 'get_weather', arguments: { city: 'Oslo' } }], usage: { input: 30, output: 8 } });
      const stream = client.messages.stream({ model: 'claude-haiku-4-5', max_tokens: 100, tools: [weatherTool], messages: [{ role: 'user', content: 'Oslo weather' }] });
      const final = await stream.finalMessage();
      const toolUse = final.content.find((b) => b.type === 'tool_use');
      assert.ok(toolUse?.type === 'tool_use');
      assert.deepEqual([toolUse.id, toolUse.name, toolUse.input], ['call_9', 'get_weather', { city: 'Oslo' }]);
      assert.equal(final.stop_reason, 'tool_use');
      assert.deepEqual([final.usage.input_tokens, final.usage.output_tokens], [30, 8]);
      const tools = upstreamBody<{ tools: Array<{ type: string; function: { name: string } }> }>(fakes.openai, 1).tools;
      assert.deepEqual(tools.map((t) => [t.type, t.function.name]), [['function', 'get_weather']]);
      await assertSettled(ctx.gw, userId, final.id, expectedCost(await prices(ctx.gw, key, 'claude-haiku-4-5'), { input: 30, output: 8 }));
    });

    test('refusals in Anthropic shape: a model without the protocol, an unknown model, a media model', async () => {
      const { key } = await ctx.gw.createUser(100);
      const client = anthropicClient(ctx.gw, key);
      for (const model of ['gpt-5.4', 'claude-9', 'nano-banana-2']) {
        await assert.rejects(client.messages.create({ model, max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }), (error: unknown) => {
          assert.ok(error instanceof Anthropic.BadRequestError, model);
          assert.equal((error.error as { error: { code: string } }).error.code, 'invalid_input');
          return true;
        });
      }
      const missing = await ctx.gw.api(key, 'POST', '/api/v1/messages', { model: 'claude-sonnet-4-6', messages: [{ role: 'user', content: 'hi' }] });
      assert.equal(missing.status, 400);
      assert.deepEqual((missing.body as { type: string; error: { type: string } }).error.type, 'invalid_request_error');
      assert.equal(fakes.anthropic.requests.length, 0);
    });

    test('upstream 429 keeps Retry-After; 529 overloaded becomes 503 overloaded_error; nothing charged', async () => {
      const { key, userId } = await ctx.gw.createUser(100);
      fakes.anthropic.enqueue({ error: { status: 429, message: 'Rate limited upstream.', retryAfter: 11 } }, { error: { status: 529 } });
      const body = { model: 'claude-sonnet-4-6', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] };
      const limited = await ctx.gw.api(key, 'POST', '/api/v1/messages', body);
      assert.equal(limited.status, 429);
      assert.equal(limited.headers.get('retry-after'), '11');
      assert.deepEqual((limited.body as { error: unknown }).error, { type: 'rate_limit_error', message: 'Rate limited upstream.', code: 'rate_limited' });
      await assert.rejects(anthropicClient(ctx.gw, key).messages.create({ ...body, messages: [{ role: 'user', content: 'hi' }] }), (error: unknown) => {
        assert.ok(error instanceof Anthropic.APIError);
        assert.equal(error.status, 503);
        assert.equal((error.error as { error: { type: string } }).error.type, 'overloaded_error');
        return true;
      });
      assert.equal(await balanceMicro(ctx.gw, userId), 1_000_000);
    });

    test('a cut stream: an error event, no message_stop; billed for the reported input and the output received', async () => {
      const { key, userId } = await ctx.gw.createUser(100);
      fakes.anthropic.enqueue({ text: 'one two three four five six seven eight nine ten', usage: { input: 77 }, cutAfterChunks: 5 });
      const stream = anthropicClient(ctx.gw, key).messages.stream({ model: 'claude-sonnet-4-6', max_tokens: 100, messages: [{ role: 'user', content: 'count' }] });
      let text = '';
      stream.on('text', (delta) => {
        text += delta;
      });
      await assert.rejects(stream.finalMessage(), (error: unknown) => error instanceof Anthropic.APIError);
      assert.ok(text.length > 0);
      const row = await latestRow(ctx.gw, userId);
      assert.equal(row.status, 'cut');
      assert.equal(row.usage_estimated, 1);
      assert.equal(row.input_tokens, 77, 'message_start reported the input');
      assert.equal(row.output_tokens, Buffer.byteLength(text));
      await assertSettled(ctx.gw, userId, row.id, expectedCost(await prices(ctx.gw, key, 'claude-sonnet-4-6'), { input: 77, output: row.output_tokens }));
    });

    test('failover across protocols: Anthropic route overloaded, the OpenAI route streams the answer', async () => {
      const { key, userId } = await ctx.gw.createUser(100);
      fakes.anthropic.enqueue({ error: { status: 529 } });
      fakes.openai.enqueue({ text: 'Answer from the backup.', usage: { input: 15, output: 5 } });
      const stream = anthropicClient(ctx.gw, key).messages.stream({ model: 'claude-opus-4-7', max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] });
      const events: string[] = [];
      stream.on('streamEvent', (event) => events.push(event.type));
      const final = await stream.finalMessage();
      assert.deepEqual(final.content, [{ type: 'text', text: 'Answer from the backup.' }]);
      assert.equal(events.filter((e) => e === 'message_start').length, 1);
      assert.equal(upstreamBody<{ model: string }>(fakes.anthropic, 0).model, 'opus-primary');
      assert.equal(upstreamBody<{ model: string }>(fakes.openai, 0).model, 'opus-backup');
      const row = await assertSettled(ctx.gw, userId, final.id, expectedCost(await prices(ctx.gw, key, 'claude-opus-4-7'), { input: 15, output: 5 }));
      assert.deepEqual([row.provider, row.attempts], ['oa-backup', 2]);
    });
  },
  { configFile: fakes.config },
);
