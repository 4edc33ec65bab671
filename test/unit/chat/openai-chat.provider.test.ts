/** The `openai` adapter against the fake OpenAI upstream. */
import assert from 'node:assert/strict';
import { isAppError } from '../../../src/domain/errors.ts';
import { after, afterEach, before, describe, test } from 'node:test';
import { setImmediate } from 'node:timers/promises';
import OpenAI from 'openai';
import type { ProviderConfig } from '../../../src/config/config.types.ts';
import { collectChatStream } from '../../../src/domain/chat/chat-stream.collector.ts';
import type { ChatStreamEvent } from '../../../src/domain/chat/chat-response.types.ts';
import { estimatePromptTokens } from '../../../src/domain/chat/prompt-size.estimator.ts';
import { parseAnthropicMessagesRequest } from '../../../src/protocols/anthropic-messages/anthropic-messages.parser.ts';
import { parseOpenAiChatRequest } from '../../../src/protocols/openai-chat/openai-chat.parser.ts';
import type { ChatProvider, ChatUpstreamResult } from '../../../src/providers/chat/chat-provider.ts';
import { type ChatProviderRegistry, createChatProviderRegistry } from '../../../src/providers/registries/chat.registry.ts';
import { createChatUpstreamClient } from '../../../src/providers/chat/chat-upstream-client.ts';
import { createOpenAiBaseProvider } from '../../../src/providers/chat/open-ai-base/open-ai-base.provider.ts';
import { appErrorFromUpstream } from '../../../src/providers/chat/upstream-error.ts';
import { OpenAiChatFake } from '../../fakes/openai-chat.fake.ts';

const target = { upstreamModel: 'gpt-up' };
const request = (body: Record<string, unknown> = {}) =>
  parseOpenAiChatRequest({ model: 'gpt-5.4', messages: [{ role: 'user', content: 'Say hello' }], ...body }).request;
const signal = () => new AbortController().signal;
const sentBody = (fake: { requests: Array<{ body: unknown }> }, i: number): Record<string, unknown> => {
  const body = fake.requests[i]?.body;
  assert.ok(body !== null && typeof body === 'object');
  return body as Record<string, unknown>;
};

function stream(result: ChatUpstreamResult): AsyncIterable<ChatStreamEvent> {
  assert.equal(result.ok, true, JSON.stringify(result));
  assert.ok(result.ok && result.kind === 'stream');
  return result.events;
}

describe('openai chat provider', () => {
  let fake: OpenAiChatFake;
  let registry: ChatProviderRegistry;
  let provider: ChatProvider;
  const config = (overrides: Partial<ProviderConfig> = {}): ProviderConfig => ({
    type: 'openai', baseUrl: fake.baseUrl, apiKey: fake.apiKey, timeoutMs: 2_000, concurrency: 8, options: {}, ...overrides,
  });
  before(async () => {
    fake = await OpenAiChatFake.start();
    registry = createChatProviderRegistry();
    provider = registry.create(config());
  });
  afterEach(() => fake.reset());
  after(async () => {
    await registry.close();
    await fake.close();
  });

  test('non-streaming answer with usage, passthrough forwarded, target model and auth used', async () => {
    fake.enqueue({ text: 'Hi there.', usage: { input: 11, output: 3, cached: 4 } });
    const result = await provider.send(request({ seed: 7, max_tokens: 50 }), target, signal());
    assert.ok(result.ok && result.kind === 'response');
    assert.deepEqual(result.response.content, [{ type: 'text', text: 'Hi there.' }]);
    assert.equal(result.response.stopReason, 'end_turn');
    assert.equal(result.response.model, 'gpt-up');
    assert.match(result.response.id, /^chatcmpl-/);
    assert.deepEqual(result.response.usage, { inputTokens: 11, outputTokens: 3, cachedInputTokens: 4, cacheCreationTokens: 0, serviceTier: 'default' });
    const sent = fake.requests[0]!;
    assert.equal(sent.headers.authorization, `Bearer ${fake.apiKey}`);
    assert.deepEqual(sent.body, { model: 'gpt-up', messages: [{ role: 'user', content: 'Say hello' }], max_tokens: 50, seed: 7 });
  });

  test('a vendor is data over the one OpenAI base: its default base URL, fixed headers and output limit name', async () => {
    fake.enqueue({ text: 'ok', usage: { input: 3, output: 1 } });
    const http = createChatUpstreamClient();
    try {
      const vendor = { defaultBaseUrl: fake.baseUrl, headers: { 'x-vendor': 'v1' }, maxTokensField: 'max_completion_tokens' as const };
      const provider = createOpenAiBaseProvider(vendor, config({ baseUrl: undefined, options: { headers: { 'X-Extra': 'e' } } }), http);
      const result = await provider.send(request({ max_tokens: 5 }), target, signal());
      assert.ok(result.ok && result.kind === 'response', JSON.stringify(result));
      const sent = fake.requests[0]!;
      assert.equal(sent.headers['x-vendor'], 'v1');
      assert.equal(sent.headers['x-extra'], 'e');
      assert.equal(sent.headers.authorization, `Bearer ${fake.apiKey}`);
      assert.equal(sentBody(fake, 0).max_completion_tokens, 5);
      assert.equal(sentBody(fake, 0).max_tokens, undefined);
    } finally {
      await http.close();
    }
  });

  test('streaming text through a fragmented SSE body; usage is always asked for', async () => {
    fake.enqueue({ text: 'Héllo wörld, this is streamed ✓', usage: { input: 9, output: 8, cached: 0 }, fragment: true });
    const result = await provider.send(request({ stream: true }), target, signal());
    const collected = await collectChatStream(stream(result));
    assert.ok(collected.ok);
    assert.deepEqual(collected.response.content, [{ type: 'text', text: 'Héllo wörld, this is streamed ✓' }]);
    assert.deepEqual(collected.response.usage, { inputTokens: 9, outputTokens: 8, cachedInputTokens: 0, cacheCreationTokens: 0, serviceTier: 'default' });
    assert.deepEqual(sentBody(fake, 0).stream_options, { include_usage: true });
  });

  test('a long stream read by a slow consumer arrives whole and in order (the connection pauses and resumes)', async () => {
    const text = Array.from({ length: 3000 }, (_, i) => `word${i}`).join(' ');
    fake.enqueue({ text, usage: { input: 5, output: 3000 } });
    const result = await provider.send(request({ stream: true }), target, signal());
    let received = '';
    let last: ChatStreamEvent | undefined;
    let events = 0;
    for await (const event of stream(result)) {
      if (event.type === 'text_delta') received += event.text;
      last = event;
      // Slower than the upstream writes: more than the high-water mark of decoded events waits.
      if (++events % 50 === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      else await setImmediate();
    }
    assert.equal(received, text);
    assert.equal(last?.type, 'message_end');
    assert.ok(events > 1500, `${events} events`);
  });

  test('streamed tool calls arrive as starts and argument deltas', async () => {
    fake.enqueue({ toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris', unit: 'celsius' }, id: 'call_w' }, { name: 'get_time', arguments: {} }] });
    const tools = [
      { type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } },
      { type: 'function', function: { name: 'get_time', parameters: { type: 'object' } } },
    ];
    const result = await provider.send(request({ stream: true, tools }), target, signal());
    const events: ChatStreamEvent[] = [];
    for await (const event of stream(result)) events.push(event);
    const starts = events.filter((e) => e.type === 'tool_call_start');
    assert.deepEqual(starts.map((e) => [e.index, e.name]), [[0, 'get_weather'], [1, 'get_time']]);
    assert.ok(events.filter((e) => e.type === 'tool_call_delta' && e.index === 0).length > 2);
    const collected = await collectChatStream((async function* () { yield* events; })());
    assert.ok(collected.ok);
    assert.deepEqual(collected.response.content[0], { type: 'tool_call', id: 'call_w', name: 'get_weather', arguments: '{"city":"Paris","unit":"celsius"}' });
    assert.equal(collected.response.stopReason, 'tool_use');
  });

  test('errors are classified; Retry-After and the upstream message are kept', async () => {
    fake.enqueue(
      { error: { status: 429, message: 'Rate limit reached for requests', retryAfter: 7 } },
      { error: { status: 400, message: "Invalid 'temperature'" } },
      { error: { status: 503, message: 'The engine is currently overloaded' } },
    );
    const limited = await provider.send(request(), target, signal());
    assert.deepEqual(limited.ok ? undefined : { ...limited.error, upstreamBody: undefined }, {
      status: 429, retryable: true, retryAfterS: 7, message: 'Rate limit reached for requests', type: 'requests', upstreamBody: undefined,
    });
    const bad = await provider.send(request(), target, signal());
    assert.ok(!bad.ok);
    assert.equal(bad.error.status, 400);
    assert.equal(bad.error.retryable, false);
    assert.equal(bad.error.message, "Invalid 'temperature'");
    assert.match(bad.error.upstreamBody ?? '', /invalid_request_error/);
    const down = await provider.send(request({ stream: true }), target, signal());
    assert.ok(!down.ok);
    assert.equal(down.error.status, 503);
    assert.equal(down.error.retryable, true);
    const wrongKey = registry.create(config({ apiKey: 'sk-wrong' }));
    const denied = await wrongKey.send(request(), target, signal());
    assert.ok(!denied.ok);
    assert.equal(denied.error.status, 401);
    assert.equal(denied.error.retryable, true, 'our key at this upstream is bad: another route may work');
    assert.equal(appErrorFromUpstream(denied.error).status, 502);
  });

  test('connection refused and a time-out before the first byte are retryable', async () => {
    const closed = await OpenAiChatFake.start();
    const url = closed.baseUrl;
    await closed.close();
    const refused = await registry.create(config({ baseUrl: url })).send(request(), target, signal());
    assert.ok(!refused.ok);
    assert.equal(refused.error.status, 502);
    assert.equal(refused.error.retryable, true);

    fake.enqueue({ delayMs: 6_000 });
    const slow = registry.create(config({ timeoutMs: 100 }));
    const started = Date.now();
    const timedOut = await slow.send(request({ stream: true }), target, signal());
    assert.ok(!timedOut.ok);
    assert.equal(timedOut.error.status, 504);
    assert.equal(timedOut.error.retryable, true);
    assert.ok(Date.now() - started < 5_000, 'the time-out fired before the upstream answered');
  });

  test('a stream cut after content ends with an error event carrying the observed usage', async () => {
    fake.enqueue({ text: 'one two three four five six', cutAfterChunks: 3 });
    const req = request({ stream: true });
    const result = await provider.send(req, target, signal());
    const events: ChatStreamEvent[] = [];
    for await (const event of stream(result)) events.push(event);
    const last = events.at(-1);
    assert.equal(last?.type, 'error');
    assert.ok(last?.type === 'error');
    assert.equal(last.error.status, 502);
    // No usage chunk arrived: the input is the prompt's upper bound, the output the bytes seen.
    assert.deepEqual(last.usage, { inputTokens: estimatePromptTokens(req), outputTokens: 'one two three four '.length, cachedInputTokens: 0, cacheCreationTokens: 0, serviceTier: 'default', estimated: true });
    assert.equal(events.filter((e) => e.type === 'message_end').length, 0);
    assert.equal(await fake.requests[0]?.outcome, 'cut');
  });

  test('a stream cut before any content, or failing in-band first, is a retryable failure', async () => {
    fake.enqueue({ cutAfterChunks: 1 }, { errorAfterChunks: { chunks: 1, message: 'Internal error' } });
    const cut = await provider.send(request({ stream: true }), target, signal());
    assert.ok(!cut.ok);
    assert.equal(cut.error.status, 502);
    assert.equal(cut.error.retryable, true);
    const inBand = await provider.send(request({ stream: true }), target, signal());
    assert.ok(!inBand.ok);
    assert.equal(inBand.error.message, 'Internal error');
    assert.equal(inBand.error.type, 'server_error');
  });

  test('an in-band error after content ends the stream with that error', async () => {
    fake.enqueue({ text: 'alpha beta gamma delta', errorAfterChunks: { chunks: 2, message: 'Upstream went away', type: 'server_error' } });
    const collected = await collectChatStream(stream(await provider.send(request({ stream: true }), target, signal())));
    assert.ok(!collected.ok);
    assert.equal(collected.error.message, 'Upstream went away');
    assert.deepEqual(collected.partial.content, [{ type: 'text', text: 'alpha beta ' }]);
  });

  test('usage the upstream omits is estimated and flagged', async () => {
    fake.enqueue({ text: 'abc', omitUsage: true }, { text: 'abc', omitUsage: true });
    const req = request({ stream: true });
    const collected = await collectChatStream(stream(await provider.send(req, target, signal())));
    assert.ok(collected.ok);
    assert.deepEqual(collected.response.usage, { inputTokens: estimatePromptTokens(req), outputTokens: 3, cachedInputTokens: 0, cacheCreationTokens: 0, serviceTier: 'default', estimated: true });
    const whole = await provider.send(request(), target, signal());
    assert.ok(whole.ok && whole.kind === 'response');
    assert.equal(whole.response.usage.estimated, true);
  });

  test('aborting cancels the upstream request, before and during the stream', async () => {
    fake.enqueue({ delayMs: 300 });
    const early = new AbortController();
    setTimeout(() => early.abort(), 50);
    const before = await provider.send(request({ stream: true }), target, early.signal);
    assert.ok(!before.ok);
    assert.deepEqual(before.error, { status: 499, retryable: false, message: 'The client cancelled the request.' });
    assert.equal(await fake.requests[0]?.outcome, 'aborted');

    fake.enqueue({ text: 'w '.repeat(200), chunkDelayMs: 20 });
    const during = new AbortController();
    const events = stream(await provider.send(request({ stream: true }), target, during.signal));
    const seen: string[] = [];
    for await (const event of events) {
      seen.push(event.type);
      if (seen.length === 3) during.abort();
    }
    assert.equal(seen.at(-1), 'error');
    assert.ok(seen.length < 20);
    assert.equal(await fake.requests[1]?.outcome, 'aborted');
  });

  test('an unknown field is refused before any call; a value the upstream refuses comes back in its words', async () => {
    assert.throws(() => request({ foo_bar: 1 }), (e: unknown) => isAppError(e) && e.param === 'foo_bar' && /Unrecognized request argument supplied: foo_bar/.test(e.message));
    const result = await provider.send(request({ reasoning_effort: 'extreme' }), target, signal());
    assert.ok(!result.ok);
    assert.equal(result.error.status, 400);
    assert.equal(result.error.retryable, false);
    assert.match(result.error.message, /^Invalid value: 'extreme'\. Supported values are: /);
    const appError = appErrorFromUpstream(result.error);
    assert.equal(appError.code, 'invalid_input');
    assert.equal(appError.message, result.error.message);
  });

  test('an Anthropic client reaches an OpenAI upstream: translated, Anthropic-only fields left out', async () => {
    const req = parseAnthropicMessagesRequest({
      model: 'claude-sonnet-4-6', max_tokens: 99, system: 'Be terse.', service_tier: 'auto', metadata: {},
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
    });
    const result = await provider.send(req, target, signal());
    assert.ok(result.ok);
    assert.deepEqual(fake.requests[0]?.body, {
      model: 'gpt-up', max_tokens: 99, messages: [{ role: 'system', content: 'Be terse.' }, { role: 'user', content: 'hi' }],
    });
    const document = parseAnthropicMessagesRequest({
      model: 'c', max_tokens: 9, messages: [{ role: 'user', content: [{ type: 'document', source: { type: 'url', url: 'https://x/a.pdf' } }] }],
    });
    const refused = await provider.send(document, target, signal());
    assert.ok(!refused.ok);
    assert.equal(refused.error.status, 400);
    assert.equal(refused.error.retryable, true, 'a route that speaks Anthropic may take it');
    // top_k changes the answer: not dropped, refused the same way, naming it.
    const topK = await provider.send(parseAnthropicMessagesRequest({ model: 'c', max_tokens: 9, top_k: 4, messages: [{ role: 'user', content: 'hi' }] }), target, signal());
    assert.deepEqual(topK.ok ? undefined : [topK.error.status, topK.error.retryable, topK.error.param], [400, true, 'top_k']);
    assert.equal(fake.requests.length, 1);
  });

  test('the connection is kept alive across streamed requests; max_completion_tokens on api.openai.com style', async () => {
    // A fresh Agent, so that only this test's connections are in its pool.
    const own = createChatProviderRegistry();
    const fresh = own.create(config());
    for (let i = 0; i < 4; i++) {
      const collected = await collectChatStream(stream(await fresh.send(request({ stream: true }), target, signal())));
      assert.ok(collected.ok);
      // undici frees a connection on the tick after its response ends; a request issued in the
      // very same tick opens a second one.
      await setImmediate();
    }
    await own.close();
    const ports = new Set(fake.requests.map((r) => r.remotePort));
    assert.equal(ports.size, 1);
    const named = registry.create(config({ options: { maxTokensField: 'max_completion_tokens' } }));
    await named.send(request({ max_tokens: 12 }), target, signal());
    assert.equal(sentBody(fake, fake.requests.length - 1).max_completion_tokens, 12);
  });

  test('the fake itself satisfies the official SDK (streamed tool calls and usage)', async () => {
    fake.enqueue({ text: 'Calling.', toolCalls: [{ name: 'lookup', arguments: { q: 'x' } }], usage: { input: 20, output: 6, cached: 10 } });
    const client = new OpenAI({ baseURL: fake.baseUrl, apiKey: fake.apiKey, maxRetries: 0 });
    const final = await client.chat.completions
      .stream({ model: 'gpt-5.4', messages: [{ role: 'user', content: 'x' }], stream_options: { include_usage: true } })
      .finalChatCompletion();
    const call = final.choices[0]?.message.tool_calls?.[0];
    assert.equal(call?.type === 'function' ? call.function.arguments : '', '{"q":"x"}');
    assert.equal(final.choices[0]?.message.content, 'Calling.');
    assert.equal(final.usage?.prompt_tokens_details?.cached_tokens, 10);
  });
});
