/** The `anthropic` adapter against the fake Anthropic upstream. */
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import type { ProviderConfig } from '../../../src/config/config.types.ts';
import type { ChatStreamEvent } from '../../../src/domain/chat/chat-response.types.ts';
import { collectChatStream } from '../../../src/domain/chat/chat-stream.collector.ts';
import { parseAnthropicMessagesRequest } from '../../../src/protocols/anthropic-messages/anthropic-messages.parser.ts';
import { parseOpenAiChatRequest } from '../../../src/protocols/openai-chat/openai-chat.parser.ts';
import type { ChatProvider, ChatUpstreamResult } from '../../../src/providers/chat/chat-provider.ts';
import { type ChatProviderRegistry, createChatProviderRegistry } from '../../../src/providers/registries/chat.registry.ts';
import { AnthropicMessagesFake } from '../../fakes/anthropic-messages.fake.ts';

const target = { upstreamModel: 'claude-up' };
const request = (body: Record<string, unknown> = {}) =>
  parseAnthropicMessagesRequest({ model: 'claude-sonnet-4-6', max_tokens: 200, messages: [{ role: 'user', content: 'Say hello' }], ...body });
const signal = () => new AbortController().signal;
const sentBody = (fake: { requests: Array<{ body: unknown }> }, i: number): Record<string, unknown> => {
  const body = fake.requests[i]?.body;
  assert.ok(body !== null && typeof body === 'object');
  return body as Record<string, unknown>;
};

function stream(result: ChatUpstreamResult): AsyncIterable<ChatStreamEvent> {
  assert.ok(result.ok && result.kind === 'stream', JSON.stringify(result));
  return result.events;
}

describe('anthropic messages provider', () => {
  let fake: AnthropicMessagesFake;
  let registry: ChatProviderRegistry;
  let provider: ChatProvider;
  const config = (overrides: Partial<ProviderConfig> = {}): ProviderConfig => ({
    type: 'anthropic', baseUrl: fake.baseUrl, apiKey: fake.apiKey, timeoutMs: 2_000, concurrency: 8, options: {}, ...overrides,
  });
  before(async () => {
    fake = await AnthropicMessagesFake.start();
    registry = createChatProviderRegistry();
    provider = registry.create(config());
  });
  afterEach(() => fake.reset());
  after(async () => {
    await registry.close();
    await fake.close();
  });

  test('non-streaming answer; cache reads and writes are part of the input; headers and passthrough sent', async () => {
    fake.enqueue({ text: 'Hello!', usage: { input: 10, output: 4, cached: 20, cacheCreation: 30 } });
    const result = await provider.send(request({ top_k: 3, system: 'Be nice.' }), target, signal());
    assert.ok(result.ok && result.kind === 'response');
    assert.deepEqual(result.response.content, [{ type: 'text', text: 'Hello!' }]);
    assert.deepEqual(result.response.usage, { inputTokens: 60, outputTokens: 4, cachedInputTokens: 20, cacheCreationTokens: 30, cacheCreation1hTokens: 0, serviceTier: 'standard' });
    assert.equal(result.response.stopReason, 'end_turn');
    const sent = fake.requests[0]!;
    assert.equal(sent.headers['x-api-key'], fake.apiKey);
    assert.equal(sent.headers['anthropic-version'], '2023-06-01');
    assert.equal(sent.headers.authorization, undefined);
    assert.deepEqual(sent.body, { model: 'claude-up', max_tokens: 200, messages: [{ role: 'user', content: 'Say hello' }], system: 'Be nice.', top_k: 3 });
  });

  test('streaming thinking, text and a tool call; usage from message_start and message_delta', async () => {
    fake.enqueue({
      reasoning: 'I should call the tool.',
      text: 'Let me check the weather.',
      toolCalls: [{ id: 'toolu_9', name: 'get_weather', arguments: { city: 'Paris', days: 3 } }],
      usage: { input: 40, output: 25, cached: 8 },
      fragment: true,
    });
    const collected = await collectChatStream(stream(await provider.send(request({ stream: true }), target, signal())));
    assert.ok(collected.ok);
    const [thinking, text, call] = collected.response.content;
    assert.equal(thinking?.type === 'reasoning' && thinking.text, 'I should call the tool.');
    assert.match(thinking?.type === 'reasoning' ? thinking.signature ?? '' : '', /^sig_/);
    assert.deepEqual(text, { type: 'text', text: 'Let me check the weather.' });
    assert.deepEqual(call, { type: 'tool_call', id: 'toolu_9', name: 'get_weather', arguments: '{"city":"Paris","days":3}' });
    assert.equal(collected.response.stopReason, 'tool_use');
    assert.deepEqual(collected.response.usage, { inputTokens: 48, outputTokens: 25, cachedInputTokens: 8, cacheCreationTokens: 0, cacheCreation1hTokens: 0, serviceTier: 'standard' });
  });

  test('an OpenAI client with a tool conversation and no max_tokens passes Anthropic validation', async () => {
    const req = parseOpenAiChatRequest({
      model: 'claude-sonnet-4-6',
      messages: [
        { role: 'system', content: 'Sys' },
        { role: 'user', content: 'Weather?' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'w', arguments: '{"c":"P"}' } }] },
        { role: 'tool', tool_call_id: 'call_1', content: 'sunny' },
      ],
      tools: [{ type: 'function', function: { name: 'w', parameters: { type: 'object' } } }],
      store: true,
    }).request;
    const result = await provider.send(req, target, signal());
    assert.ok(result.ok, JSON.stringify(result));
    const body = fake.requests[0]?.body as Record<string, unknown>;
    assert.equal(body.max_tokens, 4096);
    assert.equal(body.system, 'Sys');
    assert.equal(body.store, undefined);
    // A field that changes the answer is not dropped: this route refuses, naming it (a retryable failure).
    const seeded = await provider.send({ ...req, passthrough: { protocol: 'openai', fields: { seed: 5 }, keepAcross: ['seed'] } }, target, signal());
    assert.deepEqual(seeded.ok ? undefined : [seeded.error.status, seeded.error.retryable, seeded.error.param], [400, true, 'seed']);
    assert.equal(fake.requests.length, 1, 'nothing was sent for it');
  });

  test('errors are classified with Retry-After; an overloaded first event fails over', async () => {
    fake.enqueue(
      { error: { status: 529, message: 'Overloaded', retryAfter: 3 } },
      { error: { status: 400, message: 'messages: roles must alternate' } },
      { errorAfterChunks: { chunks: 1, type: 'overloaded_error', message: 'Overloaded' } },
    );
    const overloaded = await provider.send(request(), target, signal());
    assert.ok(!overloaded.ok);
    assert.equal(overloaded.error.status, 529);
    assert.equal(overloaded.error.retryable, true);
    assert.equal(overloaded.error.retryAfterS, 3);
    assert.equal(overloaded.error.type, 'overloaded_error');
    assert.equal(overloaded.error.message, 'Overloaded');
    const bad = await provider.send(request(), target, signal());
    assert.ok(!bad.ok);
    assert.equal(bad.error.retryable, false);
    assert.equal(bad.error.type, 'invalid_request_error');
    assert.equal(bad.error.message, 'messages: roles must alternate');
    const inBand = await provider.send(request({ stream: true }), target, signal());
    assert.ok(!inBand.ok);
    assert.deepEqual({ status: inBand.error.status, retryable: inBand.error.retryable, type: inBand.error.type }, { status: 529, retryable: true, type: 'overloaded_error' });
  });

  test('an error event after content ends the stream with it and the input usage seen', async () => {
    fake.enqueue({ text: 'one two three four five', usage: { input: 70 }, errorAfterChunks: { chunks: 5, type: 'api_error', message: 'Internal server error' } });
    const events: ChatStreamEvent[] = [];
    for await (const event of stream(await provider.send(request({ stream: true }), target, signal()))) events.push(event);
    const last = events.at(-1);
    assert.ok(last?.type === 'error');
    assert.deepEqual(last.error, { status: 500, message: 'Internal server error', type: 'api_error' });
    assert.equal(last.usage.inputTokens, 70);
    assert.equal(last.usage.outputTokens, 'one two three four '.length);
    assert.equal(last.usage.estimated, true);
  });

  test('a cut stream ends with an error event; the fake sees the cut', async () => {
    fake.enqueue({ text: 'a b c d e f g h', usage: { input: 33, cached: 3 }, cutAfterChunks: 5 });
    const collected = await collectChatStream(stream(await provider.send(request({ stream: true }), target, signal())));
    assert.ok(!collected.ok);
    assert.equal(collected.error.status, 502);
    assert.match(collected.error.message, /broke|closed/);
    assert.equal(collected.usage.inputTokens, 36);
    assert.equal(collected.usage.cachedInputTokens, 3);
    assert.deepEqual(collected.partial.content, [{ type: 'text', text: 'a b c d ' }]);
    assert.equal(await fake.requests[0]?.outcome, 'cut');
  });

  test('aborting mid-stream closes the upstream connection', async () => {
    fake.enqueue({ text: 'word '.repeat(100), chunkDelayMs: 20 });
    const controller = new AbortController();
    let count = 0;
    for await (const _ of stream(await provider.send(request({ stream: true }), target, controller.signal))) {
      if (++count === 4) controller.abort();
    }
    assert.ok(count < 10);
    assert.equal(await fake.requests[0]?.outcome, 'aborted');
  });

  test('an Anthropic-only field reaches Anthropic and its refusal comes back as a value', async () => {
    fake.enqueue({ rejectFields: ['thinking'] });
    const result = await provider.send(request({ thinking: { type: 'enabled', budget_tokens: 1024 } }), target, signal());
    assert.ok(!result.ok);
    assert.equal(result.error.status, 400);
    assert.equal(result.error.retryable, false);
    assert.equal(result.error.message, 'thinking: Extra inputs are not permitted');
    assert.deepEqual(sentBody(fake, 0).thinking, { type: 'enabled', budget_tokens: 1024 });
  });

  test('the fake itself satisfies the official SDK', async () => {
    fake.enqueue({ text: 'Sure.', toolCalls: [{ name: 'lookup', arguments: { q: 'cats' } }], usage: { input: 12, output: 7 } });
    const client = new Anthropic({ baseURL: fake.baseUrl, apiKey: fake.apiKey, maxRetries: 0 });
    const message = await client.messages
      .stream({ model: 'claude-sonnet-4-6', max_tokens: 50, messages: [{ role: 'user', content: 'x' }] })
      .finalMessage();
    assert.deepEqual(message.content.map((b) => ({ ...b })), [
      { type: 'text', text: 'Sure.', citations: null },
      { type: 'tool_use', id: (message.content[1] as { id: string }).id, name: 'lookup', input: { q: 'cats' }, caller: { type: 'direct' } },
    ]);
    assert.equal(message.usage.input_tokens, 12);
    assert.equal(message.usage.output_tokens, 7);
    await assert.rejects(
      new Anthropic({ baseURL: fake.baseUrl, apiKey: 'wrong', maxRetries: 0 }).messages.create({ model: 'c', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] }),
      (error: unknown) => error instanceof Anthropic.AuthenticationError && error.type === 'authentication_error',
    );
  });
});
