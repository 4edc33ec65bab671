/**
 * The upstream side of the Responses protocol (issue 20: "the reverse where an upstream speaks
 * Responses"): the canonical request rendered as a Responses body (checked against OpenAI's published
 * `ResponseCreateParamsBase`), a Responses answer and event stream read back (the events checked against
 * the published `ResponseStreamEvent`). No provider uses these yet (docs/decisions.md, 2026-11-25).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ChatResponse, ChatStreamEvent, ChatUsage } from '../../../src/domain/chat/chat-response.types.ts';
import { isAppError } from '../../../src/domain/errors.ts';
import { parseAnthropicMessagesRequest } from '../../../src/protocols/anthropic-messages/anthropic-messages.parser.ts';
import { parseOpenAiChatRequest } from '../../../src/protocols/openai-chat/openai-chat.parser.ts';
import { parseResponsesAnswer } from '../../../src/protocols/openai-responses/openai-responses.answer-parser.ts';
import { parseResponsesRequest } from '../../../src/protocols/openai-responses/openai-responses.parser.ts';
import { renderResponsesRequest } from '../../../src/protocols/openai-responses/openai-responses.request-renderer.ts';
import { renderResponsesObject } from '../../../src/protocols/openai-responses/openai-responses.response.ts';
import { createResponsesStreamDecoder } from '../../../src/protocols/openai-responses/openai-responses-stream.decoder.ts';
import { createResponsesStreamEncoder } from '../../../src/protocols/openai-responses/openai-responses-stream.encoder.ts';
import { checkAgainstFixture } from '../../fakes/upstream-schema.ts';

const REQUEST_FIXTURE = 'openai/responses.request.json';
const EVENT_FIXTURE = 'openai/response-stream-event.response.json';
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false };

function refusedParam(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    assert.ok(isAppError(error), String(error));
    return error.param;
  }
  assert.fail('expected a refusal');
}

describe('canonical request → Responses upstream body', () => {
  test('a chat-completions conversation: instructions, images, function_call and function_call_output items, tools, JSON schema, store false', () => {
    const { request } = parseOpenAiChatRequest({
      model: 'gpt-5.4',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: [{ type: 'text', text: 'Where?' }, { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } }] },
        { role: 'assistant', content: 'Checking.', tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'locate', arguments: '{"city":"Oslo"}' } }] },
        { role: 'tool', tool_call_id: 'call_1', content: 'Oslo' },
      ],
      tools: [{ type: 'function', function: { name: 'locate', description: 'Find', parameters: schema, strict: true } }],
      tool_choice: { type: 'function', function: { name: 'locate' } },
      response_format: { type: 'json_schema', json_schema: { name: 'place', schema, strict: true } },
      max_completion_tokens: 300,
      temperature: 0.2,
      reasoning_effort: 'low',
      verbosity: 'high',
      service_tier: 'priority',
      stream: true,
    });
    const body = renderResponsesRequest(request, { model: 'gpt-up' });
    assert.equal(checkAgainstFixture(REQUEST_FIXTURE, body), undefined, JSON.stringify(body));
    assert.deepEqual(body, {
      model: 'gpt-up',
      instructions: 'Be brief.',
      input: [
        { role: 'user', content: [{ type: 'input_text', text: 'Where?' }, { type: 'input_image', image_url: `data:image/png;base64,${PNG}`, detail: 'auto' }] },
        { role: 'assistant', content: 'Checking.' },
        { type: 'function_call', call_id: 'call_1', name: 'locate', arguments: '{"city":"Oslo"}' },
        { type: 'function_call_output', call_id: 'call_1', output: 'Oslo' },
      ],
      store: false,
      stream: true,
      max_output_tokens: 300,
      temperature: 0.2,
      tools: [{ type: 'function', name: 'locate', description: 'Find', parameters: schema, strict: true }],
      tool_choice: { type: 'function', name: 'locate' },
      reasoning: { effort: 'low' },
      service_tier: 'priority',
      text: { format: { type: 'json_schema', name: 'place', schema, strict: true }, verbosity: 'high' },
    });
  });

  test('a Responses client round-trips through the canonical request to an equivalent Responses body', () => {
    const client = {
      model: 'gpt-5.4',
      instructions: 'Be brief.',
      input: [
        { role: 'user', content: [{ type: 'input_text', text: 'Hi' }, { type: 'input_image', image_url: 'https://example.com/a.png', detail: 'high' }] },
        { type: 'function_call', call_id: 'c1', name: 'f', arguments: '{}' },
        { type: 'function_call_output', call_id: 'c1', output: 'ok' },
      ],
      tools: [{ type: 'function', name: 'f', parameters: { type: 'object', properties: {} }, strict: false }],
      max_output_tokens: 50,
    };
    const body = renderResponsesRequest(parseResponsesRequest(client).request, { model: 'gpt-up' });
    assert.equal(checkAgainstFixture(REQUEST_FIXTURE, body), undefined);
    assert.deepEqual(body.input, client.input);
    assert.deepEqual([body.instructions, body.tools, body.max_output_tokens], [client.instructions, client.tools, 50]);
  });

  test('an Anthropic client to a Responses upstream: system, tool_use and tool_result become items', () => {
    const request = parseAnthropicMessagesRequest({
      model: 'claude-sonnet-4-6',
      max_tokens: 100,
      system: 'Be brief.',
      messages: [
        { role: 'user', content: 'Where?' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'locate', input: { city: 'Oslo' } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'Oslo' }] },
      ],
      tools: [{ name: 'locate', input_schema: schema }],
    });
    const body = renderResponsesRequest(request, { model: 'gpt-up' });
    assert.equal(checkAgainstFixture(REQUEST_FIXTURE, body), undefined, JSON.stringify(body));
    assert.deepEqual(body.input, [
      { role: 'user', content: [{ type: 'input_text', text: 'Where?' }] },
      { type: 'function_call', call_id: 'toolu_1', name: 'locate', arguments: '{"city":"Oslo"}' },
      { type: 'function_call_output', call_id: 'toolu_1', output: 'Oslo' },
    ]);
  });

  test('what a Responses request cannot carry is refused naming the field', () => {
    const chat = (fields: Record<string, unknown>) => parseOpenAiChatRequest({ model: 'gpt-5.4', messages: [{ role: 'user', content: 'hi' }], ...fields }).request;
    assert.equal(refusedParam(() => renderResponsesRequest(chat({ stop: ['END'] }), { model: 'm' })), 'stop');
    assert.equal(refusedParam(() => renderResponsesRequest(chat({ frequency_penalty: 0.5 }), { model: 'm' })), 'frequency_penalty');
    assert.equal(refusedParam(() => renderResponsesRequest(chat({ seed: 1 }), { model: 'm' })), 'seed');
    // Dropped where leaving it out changes nothing asked for.
    assert.equal(renderResponsesRequest(chat({ logprobs: false, store: true }), { model: 'm' }).store, false);
  });
});

const usage: ChatUsage = { inputTokens: 40, outputTokens: 12, cachedInputTokens: 8, cacheCreationTokens: 0 };
const echo = parseResponsesRequest({ model: 'gpt-5.4', input: 'hi' }).echo;

describe('Responses upstream answers and streams → canonical', () => {
  test('a whole answer: reasoning with its encrypted content, text, function calls, the usage and the stop reason', () => {
    const answer: ChatResponse = {
      id: 'resp_up',
      model: 'gpt-up',
      content: [{ type: 'reasoning', text: 'Think.', signature: 'enc' }, { type: 'text', text: 'Calling.' }, { type: 'tool_call', id: 'call_1', name: 'f', arguments: '{"a":1}' }],
      stopReason: 'tool_use',
      usage,
    };
    const parsed = parseResponsesAnswer(renderResponsesObject(answer, echo));
    assert.deepEqual(parsed.response, { id: 'resp_up', model: 'gpt-up', content: answer.content, stopReason: 'tool_use' });
    assert.deepEqual(parsed.usage, { inputTokens: 40, outputTokens: 12, cachedInputTokens: 8, cacheCreationTokens: 0 });
    const cut = parseResponsesAnswer({ ...renderResponsesObject({ ...answer, content: [{ type: 'text', text: 'Lo' }], stopReason: 'max_tokens' }, echo) });
    assert.equal(cut.response.stopReason, 'max_tokens');
  });

  /** Events through our encoder (published shapes, checked) and back through the decoder. */
  function roundTrip(events: ChatStreamEvent[]): ChatStreamEvent[] {
    const encoder = createResponsesStreamEncoder({ id: 'chat_01up', model: 'gpt-up', echo, createdAt: 1 });
    const decoder = createResponsesStreamDecoder({ estimatedInputTokens: 999 });
    const out: ChatStreamEvent[] = [];
    let sequence = 0;
    for (const event of events) {
      for (const frame of encoder.encode(event).split('\n\n').filter((f) => f !== '')) {
        const lines = frame.split('\n');
        const name = lines.find((l) => l.startsWith('event: '))?.slice(7);
        const data = lines.find((l) => l.startsWith('data: '))?.slice(6) ?? '';
        const parsed = JSON.parse(data) as { sequence_number: number };
        assert.equal(parsed.sequence_number, sequence++);
        assert.equal(checkAgainstFixture(EVENT_FIXTURE, parsed), undefined, data);
        out.push(...decoder.push(name, data));
      }
    }
    out.push(...decoder.finish());
    return out;
  }

  test('a stream of reasoning, text and two function calls decodes to the same canonical events', () => {
    const events: ChatStreamEvent[] = [
      { type: 'message_start', id: 'up', model: 'gpt-up', usage },
      { type: 'reasoning_delta', text: 'Think.' },
      { type: 'reasoning_signature', signature: 'enc' },
      { type: 'text_delta', text: 'Call' },
      { type: 'text_delta', text: 'ing.' },
      { type: 'tool_call_start', index: 0, id: 'call_1', name: 'f' },
      { type: 'tool_call_delta', index: 0, arguments: '{"a"' },
      { type: 'tool_call_delta', index: 0, arguments: ':1}' },
      { type: 'tool_call_start', index: 1, id: 'call_2', name: 'g' },
      { type: 'tool_call_delta', index: 1, arguments: '{}' },
      { type: 'message_end', stopReason: 'tool_use', usage },
    ];
    const decoded = roundTrip(events);
    assert.deepEqual(decoded.slice(1, -1), events.slice(1, -1));
    assert.deepEqual(decoded[0], { type: 'message_start', id: 'chat_01up', model: 'gpt-up', usage: { inputTokens: 999, outputTokens: 0, cachedInputTokens: 0, cacheCreationTokens: 0, estimated: true } });
    assert.deepEqual(decoded.at(-1), { type: 'message_end', stopReason: 'tool_use', usage });
  });

  test('response.incomplete ends with max_tokens; response.failed and a cut stream end with an error and the usage observed', () => {
    const incomplete = roundTrip([{ type: 'message_start', id: 'up', model: 'm', usage }, { type: 'text_delta', text: 'Lo' }, { type: 'message_end', stopReason: 'max_tokens', usage }]);
    assert.deepEqual(incomplete.at(-1), { type: 'message_end', stopReason: 'max_tokens', usage });

    const failed = roundTrip([{ type: 'message_start', id: 'up', model: 'm', usage }, { type: 'text_delta', text: 'Lo' }, { type: 'error', error: { status: 429, message: 'Slow down.' }, usage }]);
    assert.deepEqual(failed.at(-1), { type: 'error', error: { status: 429, message: 'Slow down.', type: 'rate_limit_exceeded' }, usage });
    assert.equal(failed.filter((e) => e.type === 'error').length, 1, 'the error event after response.failed is ignored');

    const decoder = createResponsesStreamDecoder({ estimatedInputTokens: 10 });
    decoder.push('response.created', JSON.stringify({ type: 'response.created', sequence_number: 0, response: { id: 'r', model: 'm' } }));
    decoder.push('response.output_text.delta', JSON.stringify({ type: 'response.output_text.delta', sequence_number: 1, item_id: 'i', output_index: 0, content_index: 0, delta: 'abcd', logprobs: [] }));
    const end = decoder.finish();
    assert.deepEqual(end, [{ type: 'error', error: { status: 502, message: 'The upstream closed the stream before it finished.' }, usage: { inputTokens: 10, outputTokens: 4, cachedInputTokens: 0, cacheCreationTokens: 0, estimated: true } }]);
    assert.deepEqual(createResponsesStreamDecoder({ estimatedInputTokens: 1 }).push(undefined, 'not json').at(-1)?.type, 'error');
  });
});
