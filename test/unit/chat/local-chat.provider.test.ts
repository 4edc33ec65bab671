/** The deterministic local text model behind the ChatProvider port. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ChatRequest } from '../../../src/domain/chat/chat-request.types.ts';
import type { ChatStreamEvent } from '../../../src/domain/chat/chat-response.types.ts';
import { collectChatStream } from '../../../src/domain/chat/chat-stream.collector.ts';
import { estimatePromptTokens } from '../../../src/domain/chat/prompt-size.estimator.ts';
import { parseOpenAiChatRequest } from '../../../src/protocols/openai-chat/openai-chat.parser.ts';
import type { ChatProvider, ChatUpstreamResult } from '../../../src/providers/chat/chat-provider.ts';
import { createChatProviderRegistry } from '../../../src/providers/registries/chat.registry.ts';
import { countLocalInputTokens, countLocalTokens } from '../../../src/domain/chat/local-tokens.ts';

const target = { upstreamModel: 'local-text' };
const signal = () => new AbortController().signal;
const registry = createChatProviderRegistry();
const local = (options: Record<string, unknown> = {}, random?: () => number): ChatProvider =>
  registry.create({ type: 'local', baseUrl: undefined, apiKey: undefined, timeoutMs: 1000, concurrency: 4, options }, random ? { random } : {});
const request = (body: Record<string, unknown>): ChatRequest => parseOpenAiChatRequest({ model: 'local-text', ...body }).request;

const weatherTool = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Weather for a city',
    parameters: {
      type: 'object',
      properties: {
        city: { type: 'string', maxLength: 40 },
        days: { type: 'integer', minimum: 1, maximum: 7 },
        unit: { type: 'string', enum: ['celsius', 'fahrenheit'] },
        detailed: { type: 'boolean' },
      },
      required: ['city', 'days', 'unit'],
      additionalProperties: false,
    },
  },
};
const imageTool = { type: 'function', function: { name: 'generate_image', parameters: { type: 'object', properties: { prompt: { type: 'string' } }, required: ['prompt'] } } };

async function whole(result: ChatUpstreamResult) {
  assert.ok(result.ok && result.kind === 'response', JSON.stringify(result));
  return result.response;
}

describe('local chat provider', () => {
  test('echoes the last user message with exact usage; streams it word by word', async () => {
    const req = request({ messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'What is the capital of France?' }] });
    const response = await whole(await local().send(req, target, signal()));
    assert.deepEqual(response.content, [{ type: 'text', text: 'You said: What is the capital of France?' }]);
    assert.equal(response.stopReason, 'end_turn');
    assert.equal(response.model, 'local-text');
    // Tokens: "Be brief." 3 + 4, "What is the capital of France?" 7 + 4.
    assert.deepEqual(response.usage, { inputTokens: 18, outputTokens: 10, cachedInputTokens: 0, cacheCreationTokens: 0 });
    assert.ok(response.usage.inputTokens <= estimatePromptTokens(req));

    const result = await local().send({ ...req, stream: true }, target, signal());
    assert.ok(result.ok && result.kind === 'stream');
    const events: ChatStreamEvent[] = [];
    for await (const event of result.events) events.push(event);
    const words = events.filter((e) => e.type === 'text_delta').map((e) => (e.type === 'text_delta' ? e.text : ''));
    assert.deepEqual(words, ['You ', 'said: ', 'What ', 'is ', 'the ', 'capital ', 'of ', 'France?']);
    assert.deepEqual(events.at(-1), { type: 'message_end', stopReason: 'end_turn', usage: response.usage });
  });

  test('calls a tool the user names, with arguments valid for its schema', async () => {
    const req = request({ messages: [{ role: 'user', content: 'Please get weather for Paris' }], tools: [imageTool, weatherTool] });
    const response = await whole(await local().send(req, target, signal()));
    assert.equal(response.stopReason, 'tool_use');
    const call = response.content[0];
    assert.ok(call?.type === 'tool_call');
    assert.equal(call.name, 'get_weather');
    assert.match(call.id, /^call_local_[0-9a-f]{20}$/);
    assert.deepEqual(JSON.parse(call.arguments), { city: 'Please get weather for Paris', days: 1, unit: 'celsius' });
    assert.equal(response.usage.outputTokens, countLocalTokens('get_weather') + countLocalTokens(call.arguments));
    // The same request always gives the same call.
    const again = await whole(await local().send(req, target, signal()));
    assert.deepEqual(again.content, response.content);
  });

  test('a JSON object in the message sets the arguments; tool_choice decides when none is named', async () => {
    const explicit = request({ messages: [{ role: 'user', content: 'call generate_image {"prompt": "a red fox"}' }], tools: [weatherTool, imageTool] });
    const call = (await whole(await local().send(explicit, target, signal()))).content[0];
    assert.deepEqual(call?.type === 'tool_call' && [call.name, JSON.parse(call.arguments)], ['generate_image', { prompt: 'a red fox' }]);

    const plain = [{ role: 'user', content: 'Hello there' }];
    const auto = await whole(await local().send(request({ messages: plain, tools: [weatherTool] }), target, signal()));
    assert.equal(auto.content[0]?.type, 'text');
    const required = await whole(await local().send(request({ messages: plain, tools: [imageTool, weatherTool], tool_choice: 'required' }), target, signal()));
    assert.equal(required.content[0]?.type === 'tool_call' && required.content[0].name, 'generate_image');
    const specific = await whole(await local().send(request({ messages: plain, tools: [imageTool, weatherTool], tool_choice: { type: 'function', function: { name: 'get_weather' } } }), target, signal()));
    assert.equal(specific.content[0]?.type === 'tool_call' && specific.content[0].name, 'get_weather');
    const none = await whole(await local().send(request({ messages: [{ role: 'user', content: 'get_weather now' }], tools: [weatherTool], tool_choice: 'none' }), target, signal()));
    assert.equal(none.content[0]?.type, 'text');
  });

  test('after a tool result it answers with it; a streamed tool call arrives in pieces', async () => {
    const req = request({
      messages: [
        { role: 'user', content: 'get_weather in Oslo' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }] },
        { role: 'tool', tool_call_id: 'call_1', content: '{"temp": -3}' },
      ],
      tools: [weatherTool],
    });
    const response = await whole(await local().send(req, target, signal()));
    assert.deepEqual(response.content, [{ type: 'text', text: 'Tool results: get_weather returned {"temp": -3}.' }]);

    const streamed = await local().send(request({ messages: [{ role: 'user', content: 'generate image of a cat' }], tools: [imageTool], stream: true }), target, signal());
    assert.ok(streamed.ok && streamed.kind === 'stream');
    const events: ChatStreamEvent[] = [];
    for await (const e of streamed.events) events.push(e);
    assert.deepEqual(events.filter((e) => e.type === 'tool_call_start').map((e) => e.type === 'tool_call_start' && e.name), ['generate_image']);
    assert.equal(events.filter((e) => e.type === 'tool_call_delta').length, 3);
    const collected = await collectChatStream((async function* () { yield* events; })());
    assert.ok(collected.ok);
    const call = collected.response.content[0];
    assert.deepEqual(call?.type === 'tool_call' && JSON.parse(call.arguments), { prompt: 'generate image of a cat' });
  });

  test('max tokens, stop sequences and JSON response formats shape the text', async () => {
    const words = [{ role: 'user', content: 'one two three four five six' }];
    const cut = await whole(await local().send(request({ messages: words, max_tokens: 4 }), target, signal()));
    assert.deepEqual(cut.content, [{ type: 'text', text: 'You said: one' }]); // You · said · : · one
    assert.equal(cut.stopReason, 'max_tokens');
    assert.equal(cut.usage.outputTokens, 4);
    const stopped = await whole(await local().send(request({ messages: words, stop: ['four', 'six'] }), target, signal()));
    assert.deepEqual(stopped.content, [{ type: 'text', text: 'You said: one two three ' }]);
    assert.equal(stopped.stopReason, 'stop_sequence');
    assert.equal(stopped.stopSequence, 'four');
    const json = await whole(await local().send(request({ messages: words, response_format: { type: 'json_object' } }), target, signal()));
    assert.deepEqual(JSON.parse(json.content[0]?.type === 'text' ? json.content[0].text : ''), { answer: 'You said: one two three four five six' });
    const schema = await whole(await local().send(request({
      messages: words,
      response_format: { type: 'json_schema', json_schema: { name: 'r', schema: { type: 'object', properties: { n: { type: 'number', minimum: 3 }, tags: { type: 'array', items: { type: 'string' }, minItems: 1 } }, required: ['n', 'tags'] } } },
    }), target, signal()));
    assert.deepEqual(JSON.parse(schema.content[0]?.type === 'text' ? schema.content[0].text : ''), { n: 3, tags: ['You said: one two three four five six'] });
  });

  test('images count and are mentioned; the local count stays under the estimate', async () => {
    const req = request({
      messages: [{ role: 'user', content: [
        { type: 'text', text: 'Décris ces images, s’il te plaît — 谢谢' },
        { type: 'image_url', image_url: { url: 'https://example.com/a.png' } },
        { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
      ] }],
      tools: [weatherTool],
    });
    const response = await whole(await local().send(req, target, signal()));
    assert.deepEqual(response.content, [{ type: 'text', text: 'You said: Décris ces images, s’il te plaît — 谢谢 (with 2 images)' }]);
    assert.equal(response.usage.inputTokens, countLocalInputTokens(req));
    assert.ok(countLocalInputTokens(req) <= estimatePromptTokens(req));
  });

  test('failure rate, latency and cancellation behave like an upstream', async () => {
    const req = request({ messages: [{ role: 'user', content: 'hi' }] });
    const failing = await local({ failureRate: 0.5 }, () => 0.2).send(req, target, signal());
    assert.deepEqual(failing, { ok: false, error: { status: 503, retryable: true, message: 'The local provider failed on purpose (failureRate).' } });
    const lucky = await local({ failureRate: 0.5 }, () => 0.7).send(req, target, signal());
    assert.equal(lucky.ok, true);

    const controller = new AbortController();
    setTimeout(() => controller.abort(), 20);
    const started = Date.now();
    const slow = await local({ latencyMs: 30_000 }).send(req, target, controller.signal);
    assert.deepEqual(slow, { ok: false, error: { status: 499, retryable: false, message: 'The client cancelled the request.' } });
    assert.ok(Date.now() - started < 15_000, 'cancelled, not waited out');

    const during = new AbortController();
    const streamed = await local({ wordDelayMs: 5 }).send(request({ messages: [{ role: 'user', content: 'a b c d e f g h i j' }], stream: true }), target, during.signal);
    assert.ok(streamed.ok && streamed.kind === 'stream');
    const types: string[] = [];
    for await (const e of streamed.events) {
      types.push(e.type);
      if (types.length === 3) during.abort();
    }
    assert.deepEqual(types, ['message_start', 'text_delta', 'text_delta', 'error']);
  });

  test('the registry knows the built-in styles and refuses unknown ones', () => {
    assert.deepEqual(registry.types(), ['anthropic', 'local', 'openai']);
    assert.equal(local().protocol, 'local');
    assert.throws(
      () => registry.create({ type: 'kie', baseUrl: undefined, apiKey: undefined, timeoutMs: 1, concurrency: 1, options: {} }),
      /No chat adapter for provider type "kie"; known: anthropic, local, openai\./,
    );
  });
});
