/**
 * POST /api/v1/responses through the official OpenAI SDK (`responses.create`, `responses.stream`),
 * against whole gateways (embedded and scale-out) whose upstreams are the strict fake OpenAI and
 * Anthropic servers: the request is translated to chat completions or messages, the answer and every
 * stream event follow OpenAI's published Responses types (openai 7.57.0, test/fixtures/upstreams/
 * openai/), and each call is charged its usage times the price, to the micro-USD.
 */
import assert from 'node:assert/strict';
import { after, beforeEach, test } from 'node:test';
import OpenAI from 'openai';
import { verifyLedger } from '../../src/adapters/db/ledger/ledger-checks.ts';
import { checkAgainstFixture } from '../fakes/upstream-schema.ts';
import {
  assertSettled,
  balanceMicro,
  chatLedger,
  expectedCost,
  heldMicro,
  openAiClient,
  prices,
  settledRow,
  startChatFakes,
  TEST_MAX_OUTPUT_TOKENS,
  upstreamBody,
} from '../support/chat-gateway.ts';
import { describeEachMode } from '../support/gateway.ts';

const fakes = await startChatFakes();
after(() => fakes.close());

const RESPONSE_FIXTURE = 'openai/response.response.json';
const EVENT_FIXTURE = 'openai/response-stream-event.response.json';
const PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

function assertPublishedShape(fixture: string, body: unknown): void {
  assert.equal(checkAgainstFixture(fixture, body), undefined, `follows ${fixture}: ${JSON.stringify(body).slice(0, 400)}`);
}

/** The typed events of a raw stream (each `data:` frame parsed), as the wire carries them. */
async function rawEvents(res: Response): Promise<Array<Record<string, unknown> & { type: string; sequence_number: number }>> {
  const text = await res.text();
  const events: Array<Record<string, unknown> & { type: string; sequence_number: number }> = [];
  for (const frame of text.split('\n\n')) {
    const data = frame.split('\n').find((line) => line.startsWith('data: '));
    if (!data) continue;
    const event = JSON.parse(data.slice(6)) as Record<string, unknown> & { type: string; sequence_number: number };
    const name = frame.split('\n').find((line) => line.startsWith('event: '))?.slice(7);
    assert.equal(name, event.type, 'the SSE event name is the type');
    events.push(event);
  }
  return events;
}

describeEachMode(
  'responses (OpenAI SDK)',
  (ctx) => {
    beforeEach(() => fakes.reset());

    test('responses.create through an OpenAI upstream: chat completions upstream, the published shape, an exact charge', async () => {
      const { key, userId } = await ctx.gw.createUser(100);
      fakes.openai.enqueue({ text: 'Paris is the capital.', model: 'gpt-upstream-mini-2026', usage: { input: 1000, output: 567, cached: 200 } });
      const client = openAiClient(ctx.gw, key);
      const response = await client.responses.create({
        model: 'gpt-5.4-mini',
        instructions: 'Be brief.',
        input: 'Capital of France?',
        max_output_tokens: 600,
        metadata: { ticket: 't-1' },
      });
      assert.equal(response.object, 'response');
      assert.equal(response.status, 'completed');
      assert.equal(response.model, 'gpt-5.4-mini');
      assert.equal(response.output_text, 'Paris is the capital.');
      assert.deepEqual(response.metadata, { ticket: 't-1' });
      assert.deepEqual([response.usage?.input_tokens, response.usage?.output_tokens, response.usage?.input_tokens_details.cached_tokens], [1000, 567, 200]);

      const raw = await ctx.gw.api(key, 'POST', '/api/v1/responses', { model: 'gpt-5.4-mini', input: 'again' });
      assert.equal(raw.status, 200);
      assertPublishedShape(RESPONSE_FIXTURE, raw.body);

      const upstream = upstreamBody<Record<string, unknown>>(fakes.openai, 0);
      assert.equal(upstream.model, 'gpt-upstream-mini');
      assert.equal(upstream.max_tokens, 600);
      assert.deepEqual(upstream.messages, [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Capital of France?' }]);
      assert.equal(upstream.metadata, undefined, 'metadata is echoed, not forwarded');
      assert.equal(upstream.store, undefined);

      const cost = expectedCost(await prices(ctx.gw, key, 'gpt-5.4-mini'), { input: 1000, output: 567, cached: 200 });
      const row = await assertSettled(ctx.gw, userId, response.id, cost);
      assert.deepEqual([row.status, row.protocol, row.provider, row.upstream_model, row.stop_reason], ['succeeded', 'openai', 'oa', 'gpt-upstream-mini', 'end_turn']);
    });

    test('responses.stream: typed events in order with sequence numbers, the final response, the same exact charge', async () => {
      const { key, userId } = await ctx.gw.createUser(100);
      fakes.openai.enqueue({ text: 'One two three four five.', usage: { input: 50, output: 9 }, fragment: true });
      const stream = openAiClient(ctx.gw, key).responses.stream({ model: 'gpt-5.4-mini', input: [{ role: 'user', content: 'Count.' }] });
      let text = '';
      const types: string[] = [];
      for await (const event of stream) {
        types.push(event.type);
        if (event.type === 'response.output_text.delta') text += event.delta;
      }
      const final = await stream.finalResponse();
      assert.equal(text, 'One two three four five.');
      assert.equal(final.output_text, 'One two three four five.');
      assert.deepEqual([final.usage?.input_tokens, final.usage?.output_tokens], [50, 9]);
      assert.deepEqual(types.slice(0, 4), ['response.created', 'response.in_progress', 'response.output_item.added', 'response.content_part.added']);
      assert.deepEqual(types.slice(-4), ['response.output_text.done', 'response.content_part.done', 'response.output_item.done', 'response.completed']);
      assert.equal(upstreamBody<{ stream?: boolean }>(fakes.openai, 0).stream, true);
      assert.equal(upstreamBody<{ max_tokens?: number }>(fakes.openai, 0).max_tokens, TEST_MAX_OUTPUT_TOKENS);
      const row = await assertSettled(ctx.gw, userId, final.id, expectedCost(await prices(ctx.gw, key, 'gpt-5.4-mini'), { input: 50, output: 9 }));
      assert.equal(row.stream, 1);
    });

    test('every stream event follows the published ResponseStreamEvent type; numbers count from 0', async () => {
      const { key } = await ctx.gw.createUser(100);
      fakes.openai.enqueue({ reasoning: 'Think first.', text: 'Done.', toolCalls: [{ id: 'call_1', name: 'lookup', arguments: { q: 'x' } }] });
      const res = await fetch(`${ctx.gw.url}/api/v1/responses`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-5.4-mini', input: 'go', stream: true, tools: [{ type: 'function', name: 'lookup', parameters: { type: 'object', properties: { q: { type: 'string' } } }, strict: false }] }),
      });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('content-type'), 'text/event-stream; charset=utf-8');
      const events = await rawEvents(res);
      events.forEach((event, i) => {
        assert.equal(event.sequence_number, i);
        assertPublishedShape(EVENT_FIXTURE, event);
      });
      const types = events.map((e) => e.type);
      for (const type of ['response.reasoning_summary_text.delta', 'response.output_text.delta', 'response.function_call_arguments.delta', 'response.function_call_arguments.done']) {
        assert.ok(types.includes(type), `${type} sent`);
      }
      const completed = events.at(-1) as unknown as { type: string; response: { output: Array<{ type: string }>; usage: unknown } };
      assert.equal(completed.type, 'response.completed');
      assert.deepEqual(completed.response.output.map((o) => o.type), ['reasoning', 'message', 'function_call']);
      assert.ok(completed.response.usage);
    });

    test('function tools round trip: function_call out, function_call_output back, translated to tool calls and tool messages', async () => {
      const { key } = await ctx.gw.createUser(100);
      const client = openAiClient(ctx.gw, key);
      const tools: OpenAI.Responses.Tool[] = [
        { type: 'function', name: 'get_weather', description: 'Weather of a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false }, strict: true },
      ];
      fakes.openai.enqueue({ toolCalls: [{ id: 'call_w1', name: 'get_weather', arguments: { city: 'Paris' } }] }, { text: 'It is 21 °C in Paris.' });
      const first = await client.responses.create({ model: 'gpt-5.4-mini', input: 'Weather in Paris?', tools, tool_choice: 'required' });
      const call = first.output.find((o) => o.type === 'function_call');
      assert.ok(call && call.type === 'function_call');
      assert.deepEqual([call.call_id, call.name, JSON.parse(call.arguments)], ['call_w1', 'get_weather', { city: 'Paris' }]);
      const second = await client.responses.create({
        model: 'gpt-5.4-mini',
        input: [{ role: 'user', content: 'Weather in Paris?' }, call, { type: 'function_call_output', call_id: 'call_w1', output: '{"celsius":21}' }],
        tools,
      });
      assert.equal(second.output_text, 'It is 21 °C in Paris.');
      const upstream = upstreamBody<Record<string, unknown>>(fakes.openai, 0);
      assert.deepEqual(upstream.tools, [{ type: 'function', function: { name: 'get_weather', description: 'Weather of a city', parameters: tools[0]?.type === 'function' ? tools[0].parameters : null, strict: true } }]);
      assert.equal(upstream.tool_choice, 'required');
      const messages = upstreamBody<{ messages: unknown[] }>(fakes.openai, 1).messages;
      assert.deepEqual(messages, [
        { role: 'user', content: 'Weather in Paris?' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_w1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
        { role: 'tool', tool_call_id: 'call_w1', content: '{"celsius":21}' },
      ]);
    });

    test('images and a JSON schema, to Claude on the Anthropic upstream (translated to messages)', async () => {
      const { key, userId } = await ctx.gw.createUser(100);
      fakes.anthropic.enqueue({ text: '{"colour":"red"}', usage: { input: 80, output: 7 } });
      const response = await openAiClient(ctx.gw, key).responses.create({
        model: 'claude-sonnet-4-6',
        input: [{ role: 'user', content: [{ type: 'input_text', text: 'Colour?' }, { type: 'input_image', image_url: `data:image/png;base64,${PNG_BASE64}`, detail: 'auto' }] }],
        text: { format: { type: 'json_schema', name: 'colour', schema: { type: 'object', properties: { colour: { type: 'string' } }, required: ['colour'], additionalProperties: false }, strict: true } },
      });
      assert.deepEqual(JSON.parse(response.output_text), { colour: 'red' });
      const upstream = upstreamBody<{ model: string; messages: Array<{ content: Array<{ type: string }> }> }>(fakes.anthropic, 0);
      assert.equal(upstream.model, 'claude-upstream-sonnet');
      assert.deepEqual(upstream.messages[0]?.content.map((c) => c.type), ['text', 'image']);
      await assertSettled(ctx.gw, userId, response.id, expectedCost(await prices(ctx.gw, key, 'claude-sonnet-4-6'), { input: 80, output: 7 }));
    });

    test('max_output_tokens reached: status incomplete with its reason, still charged', async () => {
      const { key, userId } = await ctx.gw.createUser(100);
      fakes.openai.enqueue({ text: 'Cut sh', stopReason: 'length', usage: { input: 10, output: 5 } });
      const response = await openAiClient(ctx.gw, key).responses.create({ model: 'gpt-5.4-mini', input: 'Long story', max_output_tokens: 5 });
      assert.equal(response.status, 'incomplete');
      assert.deepEqual(response.incomplete_details, { reason: 'max_output_tokens' });
      await assertSettled(ctx.gw, userId, response.id, expectedCost(await prices(ctx.gw, key, 'gpt-5.4-mini'), { input: 10, output: 5 }));
    });

    test('refusals name the field: hosted tools, previous_response_id, item references, unknown fields; GET is a 404', async () => {
      const { key, userId } = await ctx.gw.createUser(100);
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ tools: [{ type: 'web_search' }] }, 'tools[0].type'],
        [{ tool_choice: { type: 'file_search' } }, 'tool_choice.type'],
        [{ previous_response_id: 'resp_1' }, 'previous_response_id'],
        [{ input: [{ type: 'item_reference', id: 'msg_1' }] }, 'input[0].type'],
        [{ background: true }, 'background'],
        [{ frobnicate: 1 }, 'frobnicate'],
        [{ service_tier: 'flex' }, 'service_tier'],
        [{ input: [{ role: 'user', content: [{ type: 'input_image', file_id: 'file_1' }] }] }, 'input[0].content[0].file_id'],
      ];
      for (const [fields, param] of cases) {
        const res = await ctx.gw.api(key, 'POST', '/api/v1/responses', { model: 'gpt-5.4-mini', input: 'hi', ...fields });
        assert.equal(res.status, 400, JSON.stringify(fields));
        const error = (res.body as { error: { type: string; code: string; param: string } }).error;
        assert.deepEqual([error.type, error.code, error.param], ['invalid_request_error', 'invalid_input', param]);
      }
      // reasoning.effort cannot be honoured by a Claude upstream: refused, named as the client sent it.
      const effort = await ctx.gw.api(key, 'POST', '/api/v1/responses', { model: 'claude-sonnet-4-6', input: 'hi', reasoning: { effort: 'high' } });
      assert.equal(effort.status, 400);
      assert.equal((effort.body as { error: { param: string } }).error.param, 'reasoning.effort');
      assert.equal(fakes.openai.requests.length + fakes.anthropic.requests.length, 0);

      const client = openAiClient(ctx.gw, key);
      await assert.rejects(client.responses.retrieve('chat_123'), (error: unknown) => error instanceof OpenAI.NotFoundError && /not stored/.test(error.message));
      await assert.rejects(client.responses.delete('chat_123'), (error: unknown) => error instanceof OpenAI.NotFoundError);
      assert.equal(await balanceMicro(ctx.gw, userId), 1_000_000);
      assert.deepEqual(await verifyLedger(ctx.gw.gateway.services.database.db), []);
    });

    test('upstream errors in the OpenAI format: a 429 keeps Retry-After; nothing charged', async () => {
      const { key, userId } = await ctx.gw.createUser(100);
      fakes.openai.enqueue({ error: { status: 429, message: 'Slow down.', retryAfter: 7 } });
      const res = await ctx.gw.api(key, 'POST', '/api/v1/responses', { model: 'gpt-5.4-mini', input: 'hi' });
      assert.equal(res.status, 429);
      assert.equal(res.headers.get('retry-after'), '7');
      assert.deepEqual(res.body, { error: { message: 'Slow down.', type: 'rate_limit_error', param: null, code: 'rate_limited' } });

      assert.equal(await balanceMicro(ctx.gw, userId), 1_000_000);
      assert.deepEqual(await verifyLedger(ctx.gw.gateway.services.database.db), []);
    });

    test('a balance that cannot cover the hold: 402 before anything is sent upstream', async () => {
      const { key, userId } = await ctx.gw.createUser(0);
      await assert.rejects(
        openAiClient(ctx.gw, key).responses.create({ model: 'gpt-5.4-mini', input: 'hi' }),
        (error: unknown) => error instanceof OpenAI.APIError && error.status === 402 && (error.error as { code?: string } | undefined)?.code === 'insufficient_balance',
      );
      assert.equal(fakes.openai.requests.length, 0);
      assert.deepEqual(await chatLedger(ctx.gw, userId), []);
    });

    test('a stream cut by the upstream: response.failed then an error the SDK raises; what was used is charged once', async () => {
      const { key, userId } = await ctx.gw.createUser(100);
      fakes.openai.enqueue({ text: 'alpha beta gamma delta epsilon zeta', usage: { input: 40, output: 30 }, cutAfterChunks: 3 });
      const stream = openAiClient(ctx.gw, key).responses.stream({ model: 'gpt-5.4-mini', input: 'go' });
      const types: string[] = [];
      let id = '';
      await assert.rejects(
        (async () => {
          for await (const event of stream) {
            types.push(event.type);
            if (event.type === 'response.created') id = event.response.id;
          }
        })(),
        (error: unknown) => error instanceof OpenAI.APIError,
      );
      assert.ok(types.includes('response.failed'), types.join(','));
      const row = await settledRow(ctx.gw, id);
      assert.equal(row.status, 'cut');
      assert.ok(row.cost_micro > 0, 'the observed output is charged');
      const charges = (await chatLedger(ctx.gw, userId)).filter((l) => l.reference === id && l.kind === 'chat_charge');
      assert.equal(charges.length, 1);
      assert.equal(await heldMicro(ctx.gw, userId), 0);
      assert.deepEqual(await verifyLedger(ctx.gw.gateway.services.database.db), []);
    });
  },
  { configFile: fakes.config },
);
