/** The small pieces under the adapters: estimator, SSE reader, collector, error mapping. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ChatRequest } from '../../../src/domain/chat/chat-request.types.ts';
import type { ChatResponse } from '../../../src/domain/chat/chat-response.types.ts';
import { collectChatStream, responseToEvents } from '../../../src/domain/chat/chat-stream.collector.ts';
import { estimatePromptTokens, PROMPT_ESTIMATE_DEFAULTS } from '../../../src/domain/chat/prompt-size.estimator.ts';
import { createOpenAiStreamDecoder } from '../../../src/protocols/openai-chat/openai-stream.decoder.ts';
import { appErrorFromUpstream } from '../../../src/providers/chat/upstream-error.ts';
import { retryAfterSeconds } from '../../../src/providers/chat/upstream-call.ts';
import { readSse } from '../../../src/providers/chat/sse-reader.ts';

const bare = (over: Partial<ChatRequest>): ChatRequest => ({ model: 'm', system: [], messages: [], tools: [], stop: [], stream: false, ...over });

describe('prompt size estimator', () => {
  test('counts UTF-8 bytes of every text, a fixed cost per image and per message', () => {
    const { perImageTokens, perMessageTokens, perRequestTokens } = PROMPT_ESTIMATE_DEFAULTS;
    assert.equal(estimatePromptTokens(bare({})), perRequestTokens + 1);
    const text = bare({ messages: [{ role: 'user', content: [{ type: 'text', text: 'héllo 谢' }] }] });
    // h é(2) l l o space 谢(3) = 10 bytes.
    assert.equal(estimatePromptTokens(text), perRequestTokens + 1 + perMessageTokens + 10);
    const image = bare({ messages: [{ role: 'user', content: [{ type: 'image', source: { kind: 'url', url: 'https://x/y.png' } }] }] });
    assert.equal(estimatePromptTokens(image), perRequestTokens + 1 + perMessageTokens + perImageTokens);
    const tools = bare({
      system: [{ type: 'text', text: 'sys' }],
      tools: [{ type: 'function', name: 'f', description: 'd', parameters: { type: 'object' } }],
      messages: [{ role: 'assistant', content: [], toolCalls: [{ id: 'c', name: 'f', arguments: '{}' }] }],
      stop: ['END'],
    });
    const expected = perRequestTokens + 1 + (3 + perMessageTokens) + perMessageTokens + (1 + 1 + 2 + perMessageTokens)
      + (perMessageTokens + 1 + 1 + '{"type":"object"}'.length) + 3;
    assert.equal(estimatePromptTokens(tools), expected);
  });

  test('grows with every text and stays within a fixed margin above its bytes', () => {
    const long = 'The quick brown fox jumps over the lazy dog. '.repeat(50);
    const request = bare({ system: [{ type: 'text', text: long }], messages: [{ role: 'user', content: [{ type: 'text', text: long }] }] });
    const estimate = estimatePromptTokens(request);
    assert.ok(estimate >= Buffer.byteLength(long) * 2);
    assert.ok(estimate < Buffer.byteLength(long) * 2 + 1_200);
  });
});

describe('SSE reader', () => {
  async function read(chunks: Array<string | Uint8Array>) {
    const out = [];
    for await (const m of readSse((async function* () { yield* chunks; })())) out.push(m);
    return out;
  }

  test('events, multi-line data, comments, CRLF and a final message without its blank line', async () => {
    assert.deepEqual(await read([': comment\n', 'event: ping\ndata: {}\n\n', 'data: line1\r\ndata: line2\r\n\r\n', 'data: [DONE]']), [
      { event: 'ping', data: '{}' },
      { event: undefined, data: 'line1\nline2' },
      { event: undefined, data: '[DONE]' },
    ]);
  });

  test('a multi-byte character split across chunks stays whole', async () => {
    const bytes = Buffer.from('data: {"t":"wörld ✓"}\n\n', 'utf8');
    const split = [bytes.subarray(0, 14), bytes.subarray(14, 22), bytes.subarray(22)];
    assert.deepEqual(await read(split), [{ event: undefined, data: '{"t":"wörld ✓"}' }]);
  });
});

describe('collector and decoder', () => {
  test('a response replayed as events collects back to itself', async () => {
    const response: ChatResponse = {
      id: 'r', model: 'm', stopReason: 'tool_use',
      content: [
        { type: 'reasoning', text: 'think', signature: 's' },
        { type: 'text', text: 'hi' },
        { type: 'tool_call', id: 'c1', name: 'f', arguments: '{"a":1}' },
      ],
      usage: { inputTokens: 5, outputTokens: 6, cachedInputTokens: 1, cacheCreationTokens: 0 },
    };
    const collected = await collectChatStream((async function* () { yield* responseToEvents(response); })());
    assert.deepEqual(collected, { ok: true, response });
  });

  test('a stream that ends without a terminal event is a failure', async () => {
    const collected = await collectChatStream((async function* () {
      yield { type: 'message_start' as const, id: 'x', model: 'm', usage: { inputTokens: 1, outputTokens: 0, cachedInputTokens: 0, cacheCreationTokens: 0 } };
      yield { type: 'text_delta' as const, text: 'half' };
    })());
    assert.equal(collected.ok, false);
    assert.ok(!collected.ok && collected.partial.content[0]?.type === 'text');
  });

  test('the OpenAI decoder: new ids at index 0 are new calls; only [DONE] finishes', () => {
    const decoder = createOpenAiStreamDecoder({ estimatedInputTokens: 100 });
    const chunk = (delta: unknown, finish: string | null = null) => JSON.stringify({ id: 'c', model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] });
    const events = [
      ...decoder.push(undefined, chunk({ role: 'assistant' })),
      ...decoder.push(undefined, chunk({ tool_calls: [{ index: 0, id: 'a', function: { name: 'f', arguments: '{}' } }] })),
      ...decoder.push(undefined, chunk({ tool_calls: [{ index: 0, id: 'b', function: { name: 'g', arguments: '{"x":1}' } }] }, 'tool_calls')),
    ];
    assert.deepEqual(events.filter((e) => e.type === 'tool_call_start').map((e) => e.type === 'tool_call_start' && [e.index, e.id, e.name]), [[0, 'a', 'f'], [1, 'b', 'g']]);
    assert.equal(decoder.done, false);
    const end = decoder.finish();
    assert.deepEqual(end.map((e) => e.type), ['error']);
    assert.ok(end[0]?.type === 'error' && end[0].usage.inputTokens === 100 && end[0].usage.estimated === true);
  });
});

describe('upstream failures', () => {
  test('map to the AppError a route renders', () => {
    const cases: Array<[number, string, number]> = [
      [400, 'invalid_input', 400], [422, 'invalid_input', 400], [413, 'payload_too_large', 413], [429, 'rate_limited', 429],
      [401, 'upstream_error', 502], [403, 'upstream_error', 502], [404, 'upstream_error', 502], [500, 'upstream_error', 502],
      [502, 'upstream_error', 502], [503, 'service_unavailable', 503], [529, 'service_unavailable', 503], [504, 'upstream_timeout', 504],
    ];
    for (const [status, code, rendered] of cases) {
      const error = appErrorFromUpstream({ status, retryable: false, message: 'm', retryAfterS: 9 });
      assert.equal(error.code, code, `status ${status}`);
      assert.equal(error.status, rendered, `status ${status}`);
    }
    assert.equal(appErrorFromUpstream({ status: 429, retryable: true, message: 'slow', retryAfterS: 9 }).retryAfter, 9);
    assert.equal(appErrorFromUpstream({ status: 400, retryable: false, message: 'Unknown field x' }).message, 'Unknown field x');
  });

  test('Retry-After as seconds, milliseconds or a date', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    assert.equal(retryAfterSeconds({ 'retry-after': '12' }, now), 12);
    assert.equal(retryAfterSeconds({ 'retry-after-ms': '1500', 'retry-after': '9' }, now), 2);
    assert.equal(retryAfterSeconds({ 'retry-after': 'Thu, 01 Jan 2026 00:00:30 GMT' }, now), 30);
    assert.equal(retryAfterSeconds({ 'retry-after': 'soon' }, now), undefined);
    assert.equal(retryAfterSeconds({}, now), undefined);
  });
});
