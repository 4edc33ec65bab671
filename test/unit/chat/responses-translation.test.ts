/**
 * Translation of the Responses protocol (issue 20): a Responses request → the canonical request →
 * a chat-completions body and a messages body (tools, images, JSON schema, the conversation's items);
 * and back, an upstream's chat-completions or messages stream → canonical events → Responses events
 * that follow OpenAI's published `ResponseStreamEvent` type, and whole answers that follow `Response`.
 * No route's upstream speaks Responses (decision of 2026-11-25), so there is no reverse direction.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ChatResponse, ChatStreamEvent } from '../../../src/domain/chat/chat-response.types.ts';
import { isAppError } from '../../../src/domain/errors.ts';
import { renderAnthropicMessagesRequest } from '../../../src/protocols/anthropic-messages/anthropic-messages.request-renderer.ts';
import { createAnthropicStreamDecoder } from '../../../src/protocols/anthropic-messages/anthropic-stream.decoder.ts';
import { renderOpenAiChatRequest } from '../../../src/protocols/openai-chat/openai-chat.request-renderer.ts';
import { createOpenAiStreamDecoder } from '../../../src/protocols/openai-chat/openai-stream.decoder.ts';
import { parseResponsesRequest } from '../../../src/protocols/openai-responses/openai-responses.parser.ts';
import { renderResponsesObject } from '../../../src/protocols/openai-responses/openai-responses.response.ts';
import { assertChatUrlsPublic } from '../../../src/services/chat/chat-input-urls.ts';
import { createResponsesStreamEncoder } from '../../../src/protocols/openai-responses/openai-responses-stream.encoder.ts';
import { checkAgainstFixture } from '../../fakes/upstream-schema.ts';

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
const REQUEST_FIXTURE = 'openai/responses.request.json';
const RESPONSE_FIXTURE = 'openai/response.response.json';
const EVENT_FIXTURE = 'openai/response-stream-event.response.json';

const weatherSchema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false };

/** A conversation with every kind of item the route takes, as a client would send it. */
const responsesBody = {
  model: 'claude-sonnet-4-6',
  instructions: 'You are a weather bot.',
  input: [
    { role: 'developer', content: 'Answer in English.' },
    { role: 'user', content: [
      { type: 'input_text', text: 'Weather where this photo was taken?' },
      { type: 'input_image', image_url: `data:image/png;base64,${PNG}`, detail: 'low' },
      { type: 'input_image', image_url: 'https://example.com/paris.jpg', detail: 'auto' },
    ] },
    { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'Paris, probably.' }] },
    { type: 'function_call', call_id: 'call_a', name: 'get_weather', arguments: '{"city":"Paris"}' },
    { type: 'function_call', call_id: 'call_b', name: 'get_weather', arguments: '{"city":"Lyon"}' },
    { type: 'function_call_output', call_id: 'call_a', output: '21 C, sunny' },
    { type: 'function_call_output', call_id: 'call_b', output: [{ type: 'input_text', text: '18 C' }] },
    { type: 'message', id: 'msg_1', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Sunny in Paris.', annotations: [] }] },
    { role: 'user', content: 'And tomorrow?' },
  ],
  tools: [{ type: 'function', name: 'get_weather', description: 'Current weather', parameters: weatherSchema, strict: true }],
  tool_choice: { type: 'function', name: 'get_weather' },
  parallel_tool_calls: false,
  max_output_tokens: 500,
  temperature: 0.4,
  text: { format: { type: 'json_schema', name: 'forecast', schema: weatherSchema, strict: true } },
  metadata: { ticket: 't-1' },
  store: true,
  user: 'u-1',
};

function refusedParam(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    assert.ok(isAppError(error), String(error));
    assert.equal(error.code, 'invalid_input');
    return error.param;
  }
  assert.fail('expected a refusal');
}

describe('Responses request translation', () => {
  test('the test request is a valid Responses request (the published type)', () => {
    assert.equal(checkAgainstFixture(REQUEST_FIXTURE, responsesBody), undefined);
  });

  test('Responses → chat completions: system, images, grouped tool calls, tool results, tools, tool_choice, JSON schema', () => {
    const { request } = parseResponsesRequest(responsesBody);
    const body = renderOpenAiChatRequest(request, { model: 'gpt-up', maxTokensField: 'max_completion_tokens' });
    assert.deepEqual(body.messages, [
      { role: 'system', content: 'You are a weather bot.' },
      { role: 'system', content: 'Answer in English.' },
      { role: 'user', content: [
        { type: 'text', text: 'Weather where this photo was taken?' },
        { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}`, detail: 'low' } },
        { type: 'image_url', image_url: { url: 'https://example.com/paris.jpg', detail: 'auto' } },
      ] },
      // Reasoning is not sent back to OpenAI-style upstreams (some refuse it); Claude gets it as thinking.
      { role: 'assistant', content: null, tool_calls: [
        { id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
        { id: 'call_b', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Lyon"}' } },
      ] },
      { role: 'tool', tool_call_id: 'call_a', content: '21 C, sunny' },
      { role: 'tool', tool_call_id: 'call_b', content: '18 C' },
      { role: 'assistant', content: 'Sunny in Paris.' },
      { role: 'user', content: 'And tomorrow?' },
    ]);
    assert.deepEqual(body.tools, [{ type: 'function', function: { name: 'get_weather', description: 'Current weather', parameters: weatherSchema, strict: true } }]);
    assert.deepEqual(body.tool_choice, { type: 'function', function: { name: 'get_weather' } });
    assert.deepEqual(body.response_format, { type: 'json_schema', json_schema: { name: 'forecast', schema: weatherSchema, strict: true } });
    assert.deepEqual([body.max_completion_tokens, body.temperature, body.parallel_tool_calls, body.user], [500, 0.4, false, 'u-1']);
    // Echoed to the client, never forwarded: nothing is stored upstream either.
    assert.equal(body.metadata, undefined);
    assert.equal(body.store, undefined);
  });

  test('Responses → messages: system joined, image blocks, tool_use and tool_result, the forced tool', () => {
    const { request } = parseResponsesRequest(responsesBody);
    const body = renderAnthropicMessagesRequest(request, { model: 'claude-up', defaultMaxTokens: 4096 });
    assert.equal(body.model, 'claude-up');
    assert.equal(body.max_tokens, 500);
    const messages = body.messages as Array<{ role: string; content: Array<Record<string, unknown>> }>;
    assert.deepEqual(messages.map((m) => m.role), ['user', 'assistant', 'user', 'assistant', 'user']);
    assert.deepEqual(messages[0]?.content.map((c) => c.type), ['text', 'image', 'image']);
    assert.deepEqual(messages[0]?.content[1], { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } });
    assert.deepEqual(messages[1]?.content.filter((c) => c.type === 'tool_use').map((c) => [c.id, c.input]), [['call_a', { city: 'Paris' }], ['call_b', { city: 'Lyon' }]]);
    assert.deepEqual(messages[2]?.content.map((c) => [c.type, c.tool_use_id]), [['tool_result', 'call_a'], ['tool_result', 'call_b']]);
    assert.deepEqual(body.tool_choice, { type: 'tool', name: 'get_weather', disable_parallel_tool_use: true });
    assert.deepEqual((body.tools as Array<{ name: string }>).map((t) => t.name), ['get_weather']);
  });

  test('a string input is one user message; reasoning.effort and text.verbosity become chat-completions fields', () => {
    const { request } = parseResponsesRequest({ model: 'gpt-5.4', input: 'Hi', reasoning: { effort: 'high', summary: 'auto' }, text: { verbosity: 'low' } });
    const body = renderOpenAiChatRequest(request, { model: 'gpt-up', maxTokensField: 'max_completion_tokens' });
    assert.deepEqual(body.messages, [{ role: 'user', content: 'Hi' }]);
    assert.deepEqual([body.reasoning_effort, body.verbosity], ['high', 'low']);
    // The priority tier is billed at its prices, as on chat completions.
    const priority = parseResponsesRequest({ model: 'gpt-5.4', input: 'Hi', service_tier: 'priority' }).request;
    assert.deepEqual(priority.priceOptions, { priority: { param: 'service_tier' } });
    assert.equal(renderOpenAiChatRequest(priority, { model: 'gpt-up', maxTokensField: 'max_tokens' }).service_tier, 'priority');
    // A Claude route cannot honour the effort: refused under the name the client sent.
    assert.equal(refusedParam(() => renderAnthropicMessagesRequest(request, { model: 'claude-up', defaultMaxTokens: 10 })), 'reasoning.effort');
  });

  test('refusals name the field', () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ input: [] }, 'input'],
      [{ input: undefined }, 'input'],
      [{ tools: [{ type: 'code_interpreter', container: { type: 'auto' } }] }, 'tools[0].type'],
      [{ tools: [{ type: 'function', name: 'bad name', parameters: {} }] }, 'tools[0].name'],
      [{ tool_choice: { type: 'allowed_tools', mode: 'auto', tools: [] } }, 'tool_choice'],
      [{ input: [{ type: 'computer_call_output', call_id: 'c', output: {} }] }, 'input[0].type'],
      [{ input: [{ type: 'item_reference', id: 'msg_1' }] }, 'input[0].type'],
      [{ input: [{ role: 'user', content: [{ type: 'input_file', file_url: 'https://example.com/a.pdf' }] }] }, 'input[0].content[0].file_data'],
      [{ input: [{ role: 'user', content: [{ type: 'input_image', image_url: 'ftp://x' }] }] }, 'input[0].content[0].image_url'],
      [{ input: [{ role: 'tool', content: 'x' }] }, 'input[0].role'],
      [{ text: { format: { type: 'xml' } } }, 'text.format.type'],
      [{ reasoning: { effort: 'high', budget: 3 } }, 'reasoning.budget'],
      [{ conversation: 'conv_1' }, 'conversation'],
      [{ truncation: 'auto' }, 'truncation'],
      [{ max_output_tokens: 0 }, 'max_output_tokens'],
      [{ temperature: 3 }, 'temperature'],
      [{ store: 'yes' }, 'store'],
      [{ not_a_field: true }, 'not_a_field'],
    ];
    for (const [fields, param] of cases) {
      assert.equal(refusedParam(() => parseResponsesRequest({ model: 'gpt-5.4', input: 'hi', ...fields })), param, JSON.stringify(fields));
    }
  });

  test('image URLs reach the chat service\'s address policy: a private address is refused', () => {
    const { request } = parseResponsesRequest({ model: 'gpt-5.4', input: [{ role: 'user', content: [{ type: 'input_image', image_url: 'http://10.0.0.1/x.png', detail: 'auto' }] }] });
    refusedParam(() => assertChatUrlsPublic(request, { allowPrivate: false }));
  });

  test('a reference to one of our reasoning items is left out; inline files become chat-completions file parts', () => {
    const { request } = parseResponsesRequest({
      model: 'gpt-5.4',
      input: [
        { role: 'user', content: [{ type: 'input_text', text: 'Summarise' }, { type: 'input_file', filename: 'a.pdf', file_data: 'data:application/pdf;base64,JVBERi0=' }] },
        { type: 'item_reference', id: 'rs_01abc' },
        { type: 'function_call', call_id: 'c1', name: 'f', arguments: '{}' },
        { type: 'function_call_output', call_id: 'c1', output: 'ok' },
      ],
    });
    assert.deepEqual(request.messages.map((m) => m.role), ['user', 'assistant', 'tool']);
    const body = renderOpenAiChatRequest(request, { model: 'gpt-up', maxTokensField: 'max_tokens' });
    const user = (body.messages as Array<{ content: unknown }>)[0];
    assert.deepEqual(user?.content, [{ type: 'text', text: 'Summarise' }, { type: 'file', file: { file_data: 'data:application/pdf;base64,JVBERi0=', filename: 'a.pdf' } }]);
  });
});

const echo = parseResponsesRequest({ model: 'gpt-5.4', input: 'hi' }).echo;

function encodeAll(events: ChatStreamEvent[]): Array<Record<string, unknown> & { type: string }> {
  const encoder = createResponsesStreamEncoder({ id: 'chat_01test', model: 'gpt-5.4', echo, createdAt: 1 });
  const frames = events.map((e) => encoder.encode(e)).join('');
  return frames
    .split('\n\n')
    .filter((f) => f !== '')
    .map((f) => JSON.parse(f.split('\n').find((l) => l.startsWith('data: '))?.slice(6) ?? 'null') as Record<string, unknown> & { type: string });
}

function assertPublished(events: Array<Record<string, unknown>>): void {
  events.forEach((event, i) => {
    assert.equal(event.sequence_number, i);
    assert.equal(checkAgainstFixture(EVENT_FIXTURE, event), undefined, JSON.stringify(event));
  });
}

describe('Responses stream encoding', () => {
  test('a chat-completions upstream stream (reasoning, text, two tool calls) → Responses events in order', () => {
    const decoder = createOpenAiStreamDecoder({ estimatedInputTokens: 10 });
    const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
      JSON.stringify({ id: 'up', object: 'chat.completion.chunk', created: 1, model: 'gpt-up', choices: [{ index: 0, delta, finish_reason: finish }] });
    const frames = [
      chunk({ role: 'assistant', content: '' }),
      chunk({ reasoning_content: 'Think.' }),
      chunk({ content: 'Hel' }),
      chunk({ content: 'lo' }),
      chunk({ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'f', arguments: '{"a"' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: ':1}' } }] }),
      chunk({ tool_calls: [{ index: 1, id: 'call_2', type: 'function', function: { name: 'g', arguments: '{}' } }] }),
      chunk({}, 'tool_calls'),
      JSON.stringify({ id: 'up', object: 'chat.completion.chunk', created: 1, model: 'gpt-up', choices: [], usage: { prompt_tokens: 7, completion_tokens: 5, total_tokens: 12 } }),
      '[DONE]',
    ];
    const events = [...frames.flatMap((f) => decoder.push(undefined, f)), ...decoder.finish()];
    const out = encodeAll(events);
    assertPublished(out);
    assert.deepEqual(out.map((e) => e.type), [
      'response.created', 'response.in_progress',
      'response.output_item.added', 'response.reasoning_summary_part.added', 'response.reasoning_summary_text.delta',
      'response.reasoning_summary_text.done', 'response.reasoning_summary_part.done', 'response.output_item.done',
      'response.output_item.added', 'response.content_part.added', 'response.output_text.delta', 'response.output_text.delta',
      'response.output_text.done', 'response.content_part.done', 'response.output_item.done',
      'response.output_item.added', 'response.function_call_arguments.delta', 'response.function_call_arguments.delta',
      'response.function_call_arguments.done', 'response.output_item.done',
      'response.output_item.added', 'response.function_call_arguments.delta', 'response.function_call_arguments.done', 'response.output_item.done',
      'response.completed',
    ]);
    const completed = out.at(-1) as unknown as { response: { status: string; output: Array<Record<string, unknown>>; usage: Record<string, unknown> } };
    assert.equal(completed.response.status, 'completed');
    assert.deepEqual(completed.response.output.map((o) => [o.type, o.id]), [
      ['reasoning', 'rs_01test'], ['message', 'msg_01test'], ['function_call', 'fc_01test_0'], ['function_call', 'fc_01test_1'],
    ]);
    assert.deepEqual(completed.response.output[2], { type: 'function_call', id: 'fc_01test_0', call_id: 'call_1', name: 'f', arguments: '{"a":1}', status: 'completed' });
    assert.deepEqual([completed.response.usage.input_tokens, completed.response.usage.output_tokens, completed.response.usage.total_tokens], [7, 5, 12]);
  });

  test('a messages upstream stream (thinking with a signature, a tool call) → Responses events; the signature rides as encrypted_content', () => {
    const decoder = createAnthropicStreamDecoder({ estimatedInputTokens: 10 });
    const frames: Array<[string, Record<string, unknown>]> = [
      ['message_start', { type: 'message_start', message: { id: 'msg_up', type: 'message', role: 'assistant', model: 'claude-up', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 20, output_tokens: 1 } } }],
      ['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } }],
      ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'Hmm.' } }],
      ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'sig-1' } }],
      ['content_block_stop', { type: 'content_block_stop', index: 0 }],
      ['content_block_start', { type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 'toolu_1', name: 'f', input: {} } }],
      ['content_block_delta', { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"x":2}' } }],
      ['content_block_stop', { type: 'content_block_stop', index: 1 }],
      ['message_delta', { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 9 } }],
      ['message_stop', { type: 'message_stop' }],
    ];
    const events = [...frames.flatMap(([name, data]) => decoder.push(name, JSON.stringify(data))), ...decoder.finish()];
    const out = encodeAll(events);
    assertPublished(out);
    const completed = out.at(-1) as unknown as { type: string; response: { output: Array<Record<string, unknown>>; usage: Record<string, unknown> } };
    assert.equal(completed.type, 'response.completed');
    assert.deepEqual(completed.response.output[0], { type: 'reasoning', id: 'rs_01test', summary: [{ type: 'summary_text', text: 'Hmm.' }], status: 'completed', encrypted_content: 'sig-1' });
    assert.deepEqual(completed.response.output[1], { type: 'function_call', id: 'fc_01test_0', call_id: 'toolu_1', name: 'f', arguments: '{"x":2}', status: 'completed' });
    assert.deepEqual([completed.response.usage.input_tokens, completed.response.usage.output_tokens], [20, 9]);
    // Sent back, the item gives Claude its signed thinking again.
    const back = parseResponsesRequest({ model: 'claude-sonnet-4-6', input: [{ role: 'user', content: 'q' }, completed.response.output[0], completed.response.output[1], { type: 'function_call_output', call_id: 'toolu_1', output: 'r' }] });
    const rendered = renderAnthropicMessagesRequest(back.request, { model: 'claude-up', defaultMaxTokens: 10 });
    assert.deepEqual((rendered.messages as Array<{ content: Array<Record<string, unknown>> }>)[1]?.content[0], { type: 'thinking', thinking: 'Hmm.', signature: 'sig-1' });
  });

  test('max_output_tokens reached: response.incomplete with its reason; a cut stream: response.failed then error', () => {
    const usage = { inputTokens: 3, outputTokens: 4, cachedInputTokens: 0, cacheCreationTokens: 0 };
    const incomplete = encodeAll([
      { type: 'message_start', id: 'up', model: 'm', usage },
      { type: 'text_delta', text: 'abc' },
      { type: 'message_end', stopReason: 'max_tokens', usage },
    ]);
    assertPublished(incomplete);
    const last = incomplete.at(-1) as unknown as { type: string; response: { status: string; incomplete_details: unknown; output: Array<{ status: string }> } };
    assert.equal(last.type, 'response.incomplete');
    assert.deepEqual([last.response.status, last.response.incomplete_details, last.response.output[0]?.status], ['incomplete', { reason: 'max_output_tokens' }, 'incomplete']);

    const cut = encodeAll([
      { type: 'message_start', id: 'up', model: 'm', usage },
      { type: 'text_delta', text: 'abc' },
      { type: 'error', error: { status: 502, message: 'The upstream stream ended before its final event.' }, usage },
      { type: 'text_delta', text: 'ignored after the end' },
    ]);
    assertPublished(cut);
    assert.deepEqual(cut.slice(-2).map((e) => e.type), ['response.failed', 'error']);
    const failed = cut.at(-2) as unknown as { response: { status: string; error: unknown; usage: { output_tokens: number } } };
    assert.deepEqual([failed.response.status, failed.response.error, failed.response.usage.output_tokens], ['failed', { code: 'server_error', message: 'The upstream stream ended before its final event.' }, 4]);
  });

  test('a whole answer follows the published Response type', () => {
    const response: ChatResponse = {
      id: 'chat_01whole',
      model: 'gpt-5.4',
      content: [{ type: 'reasoning', text: 'r' }, { type: 'text', text: 'Hi' }, { type: 'tool_call', id: 'c', name: 'f', arguments: '{}' }],
      stopReason: 'tool_use',
      usage: { inputTokens: 5, outputTokens: 6, cachedInputTokens: 2, cacheCreationTokens: 1 },
    };
    const body = renderResponsesObject(response, parseResponsesRequest({ ...responsesBody, model: 'gpt-5.4' }).echo, 1);
    assert.equal(checkAgainstFixture(RESPONSE_FIXTURE, body), undefined);
    assert.deepEqual(body.output.map((o) => o.type), ['reasoning', 'message', 'function_call']);
    assert.deepEqual(body.usage?.input_tokens_details, { cached_tokens: 2, cache_write_tokens: 1 });
    assert.deepEqual([body.instructions, body.metadata, body.max_output_tokens, body.parallel_tool_calls, body.user], ['You are a weather bot.', { ticket: 't-1' }, 500, false, 'u-1']);
    // A tool sent without strict or parameters is listed as the upstream got it, in the published shape.
    const loose = renderResponsesObject(response, parseResponsesRequest({ model: 'gpt-5.4', input: 'hi', tools: [{ type: 'function', name: 'f', parameters: null, strict: null }] }).echo, 1);
    assert.equal(checkAgainstFixture(RESPONSE_FIXTURE, loose), undefined);
    assert.deepEqual(loose.tools, [{ type: 'function', name: 'f', parameters: { type: 'object', properties: {} }, strict: false }]);
  });
});
