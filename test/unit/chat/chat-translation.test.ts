import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isAppError } from '../../../src/domain/errors.ts';
import type { ChatRequest } from '../../../src/domain/chat/chat-request.types.ts';
import type { ChatResponse, StopReason } from '../../../src/domain/chat/chat-response.types.ts';
import { AppError } from '../../../src/domain/errors.ts';
import { parseAnthropicMessagesRequest } from '../../../src/protocols/anthropic-messages/anthropic-messages.parser.ts';
import {
  JSON_OBJECT_INSTRUCTION,
  renderAnthropicMessagesRequest,
} from '../../../src/protocols/anthropic-messages/anthropic-messages.request-renderer.ts';
import { parseAnthropicMessage, renderAnthropicMessage } from '../../../src/protocols/anthropic-messages/anthropic-messages.response.ts';
import { parseOpenAiChatRequest } from '../../../src/protocols/openai-chat/openai-chat.parser.ts';
import { renderOpenAiChatRequest } from '../../../src/protocols/openai-chat/openai-chat.request-renderer.ts';
import { parseOpenAiChatResponse, renderOpenAiChatResponse } from '../../../src/protocols/openai-chat/openai-chat.response.ts';

const toAnthropic = (r: ChatRequest) => renderAnthropicMessagesRequest(r, { model: 'claude-up', defaultMaxTokens: 4096 });
const toOpenAi = (r: ChatRequest) => renderOpenAiChatRequest(r, { model: 'gpt-up', maxTokensField: 'max_completion_tokens' });

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

const openAiBody = {
  model: 'claude-sonnet-4-6',
  messages: [
    { role: 'system', content: 'You are a weather bot.' },
    { role: 'user', content: [
      { type: 'text', text: 'Weather where this photo was taken?' },
      { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
      { type: 'image_url', image_url: { url: 'https://example.com/paris.jpg' } },
    ] },
    { role: 'assistant', content: null, tool_calls: [
      { id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
      { id: 'call_b', type: 'function', function: { name: 'get_time', arguments: '{"tz":"Europe/Paris"}' } },
    ] },
    { role: 'tool', tool_call_id: 'call_a', content: '21 C, sunny' },
    { role: 'tool', tool_call_id: 'call_b', content: '14:05' },
    { role: 'user', content: 'And tomorrow?' },
  ],
  tools: [
    { type: 'function', function: { name: 'get_weather', description: 'Current weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } },
    { type: 'function', function: { name: 'get_time', description: 'Local time', parameters: { type: 'object', properties: { tz: { type: 'string' } } } } },
  ],
  tool_choice: 'required',
  parallel_tool_calls: false,
  max_completion_tokens: 500,
  temperature: 0.4,
  stop: ['END'],
  user: 'u-1',
};

describe('request translation', () => {
  test('OpenAI → canonical → Anthropic → canonical → OpenAI keeps system, images, tools, calls and results', () => {
    const first = parseOpenAiChatRequest(openAiBody).request;
    const anthropicBody = toAnthropic(first);
    assert.deepEqual(anthropicBody.system, 'You are a weather bot.');
    assert.deepEqual(anthropicBody.messages, [
      { role: 'user', content: [
        { type: 'text', text: 'Weather where this photo was taken?' },
        { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
        { type: 'image', source: { type: 'url', url: 'https://example.com/paris.jpg' } },
      ] },
      { role: 'assistant', content: [
        { type: 'tool_use', id: 'call_a', name: 'get_weather', input: { city: 'Paris' } },
        { type: 'tool_use', id: 'call_b', name: 'get_time', input: { tz: 'Europe/Paris' } },
      ] },
      // Both results and the next user text merged into one user turn, results first.
      { role: 'user', content: [
        { type: 'tool_result', tool_use_id: 'call_a', content: [{ type: 'text', text: '21 C, sunny' }] },
        { type: 'tool_result', tool_use_id: 'call_b', content: [{ type: 'text', text: '14:05' }] },
        { type: 'text', text: 'And tomorrow?' },
      ] },
    ]);
    assert.deepEqual(anthropicBody.tools, [
      { name: 'get_weather', input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }, description: 'Current weather' },
      { name: 'get_time', input_schema: { type: 'object', properties: { tz: { type: 'string' } } }, description: 'Local time' },
    ]);
    assert.deepEqual(anthropicBody.tool_choice, { type: 'any', disable_parallel_tool_use: true });
    assert.equal(anthropicBody.max_tokens, 500);
    assert.deepEqual(anthropicBody.stop_sequences, ['END']);
    assert.deepEqual(anthropicBody.metadata, { user_id: 'u-1' });
    assert.equal(anthropicBody.model, 'claude-up');

    const second = parseAnthropicMessagesRequest(anthropicBody);
    assert.deepEqual(second.system, first.system);
    assert.deepEqual(second.messages, first.messages);
    assert.deepEqual(second.tools, first.tools);
    assert.deepEqual(second.toolChoice, first.toolChoice);

    const back = toOpenAi(second);
    assert.deepEqual(back.messages, openAiBody.messages);
    assert.deepEqual(back.tools, openAiBody.tools);
    assert.equal(back.tool_choice, 'required');
    assert.equal(back.parallel_tool_calls, false);
    assert.equal(back.max_completion_tokens, 500);
    assert.equal(back.temperature, 0.4);
    assert.deepEqual(back.stop, ['END']);
    assert.equal(back.user, 'u-1');
    // Anthropic-only passthrough (metadata) does not leak into an OpenAI body.
    assert.equal(back.metadata, undefined);
  });

  test('passthrough reaches the same protocol; across, hints are dropped and what changes the answer is refused', () => {
    const parsed = parseOpenAiChatRequest({ ...openAiBody, seed: 11, temperature: 0.2, logprobs: true }).request;
    const same = toOpenAi(parsed);
    assert.equal(same.seed, 11);
    assert.equal(same.logprobs, true);
    assert.equal(same.temperature, 0.2);
    // seed and logprobs change the answer: an Anthropic route cannot serve the request (400 naming the field).
    assert.throws(() => toAnthropic(parsed), (e: unknown) => isAppError(e) && e.param === 'seed' && e.status === 400);
    // Hints and the standard tier are left out.
    const hints = parseOpenAiChatRequest({ ...openAiBody, metadata: { a: 'b' }, store: true, prompt_cache_key: 'k', service_tier: 'default', logprobs: false }).request;
    const other = toAnthropic(hints);
    for (const key of ['store', 'prompt_cache_key', 'service_tier', 'logprobs']) assert.equal(other[key], undefined, key);
    // OpenAI's metadata (stored completions) is left out; the end user travels as Anthropic's metadata.user_id.
    assert.deepEqual(other.metadata, { user_id: 'u-1' });
    // Priority processing is refused on an Anthropic route (no per-request tier there).
    assert.throws(() => toAnthropic(parseOpenAiChatRequest({ ...openAiBody, service_tier: 'priority' }).request), (e: unknown) => isAppError(e) && e.param === 'service_tier');

    const fromAnthropic = parseAnthropicMessagesRequest({
      model: 'c', max_tokens: 10, messages: [{ role: 'user', content: 'x' }], top_k: 3,
      metadata: { user_id: 'u' }, output_config: { effort: 'high', format: { type: 'json_schema', schema: { type: 'object' } } },
    });
    const anth = toAnthropic(fromAnthropic);
    assert.equal(anth.top_k, 3);
    assert.deepEqual(anth.metadata, { user_id: 'u' });
    assert.deepEqual(anth.output_config, { effort: 'high', format: { type: 'json_schema', schema: { type: 'object' } } });
    assert.throws(() => toOpenAi(fromAnthropic), (e: unknown) => isAppError(e) && e.param === 'top_k');
    assert.throws(() => toOpenAi(parseAnthropicMessagesRequest({ model: 'c', max_tokens: 10, messages: [{ role: 'user', content: 'x' }], output_config: { effort: 'high' } })), (e: unknown) => isAppError(e) && e.param === 'output_config');
    const formatOnly = parseAnthropicMessagesRequest({
      model: 'c', max_tokens: 10, messages: [{ role: 'user', content: 'x' }], service_tier: 'standard_only', speed: 'standard', inference_geo: 'global',
      metadata: { user_id: 'u' }, output_config: { format: { type: 'json_schema', schema: { type: 'object' } } }, thinking: { type: 'disabled' },
      cache_control: { type: 'ephemeral', ttl: '1h' },
    });
    const oa = toOpenAi(formatOnly);
    for (const key of ['top_k', 'service_tier', 'speed', 'inference_geo', 'thinking', 'cache_control', 'metadata']) assert.equal(oa[key], undefined, key);
    assert.deepEqual(oa.response_format, { type: 'json_schema', json_schema: { name: 'response', schema: { type: 'object' } } });
  });

  test('response_format, temperature and stream options towards Anthropic', () => {
    const jsonObject = parseOpenAiChatRequest({
      model: 'm', messages: [{ role: 'system', content: 'Sys.' }, { role: 'user', content: 'hi' }],
      response_format: { type: 'json_object' }, temperature: 1.7, stream: true,
    }).request;
    const body = toAnthropic(jsonObject);
    assert.deepEqual(body.system, [{ type: 'text', text: 'Sys.' }, { type: 'text', text: JSON_OBJECT_INSTRUCTION }]);
    assert.equal(body.temperature, 1);
    assert.equal(body.stream, true);
    assert.equal(body.max_tokens, 4096);
    const schema = parseOpenAiChatRequest({
      model: 'm', messages: [{ role: 'user', content: 'hi' }],
      response_format: { type: 'json_schema', json_schema: { name: 'x', schema: { type: 'object', properties: {} }, strict: true } },
    }).request;
    assert.deepEqual(toAnthropic(schema).output_config, { format: { type: 'json_schema', schema: { type: 'object', properties: {} } } });
    // Toward OpenAI, streaming always asks for usage.
    assert.deepEqual(toOpenAi(jsonObject).stream_options, { include_usage: true });
  });

  test('Anthropic → OpenAI: error results, tool images, later system text, unsigned reasoning, odd tool ids', () => {
    const request = parseAnthropicMessagesRequest({
      model: 'c', max_tokens: 10,
      messages: [
        { role: 'user', content: 'Draw' },
        { role: 'assistant', content: [
          { type: 'thinking', thinking: 'hmm', signature: 's' },
          { type: 'tool_use', id: 'toolu_1', name: 'render', input: { prompt: 'cat' } },
        ] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', is_error: true, content: [
          { type: 'text', text: 'partial' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
        ] }] },
        { role: 'system', content: 'Answer in French.' },
      ],
    });
    const body = toOpenAi(request);
    assert.deepEqual(body.messages, [
      { role: 'user', content: 'Draw' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'toolu_1', type: 'function', function: { name: 'render', arguments: '{"prompt":"cat"}' } }] },
      { role: 'tool', tool_call_id: 'toolu_1', content: 'Error: partial' },
      { role: 'user', content: [
        { type: 'text', text: 'Images returned by the tool calls above:' },
        { type: 'text', text: '(toolu_1)' },
        { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
      ] },
      { role: 'system', content: 'Answer in French.' },
    ]);

    const fromOpenAi = parseOpenAiChatRequest({
      model: 'm',
      messages: [
        { role: 'user', content: 'q' },
        { role: 'assistant', reasoning_content: 'unsigned thoughts', content: 'Let me check.', tool_calls: [{ id: 'fc.1:x', type: 'function', function: { name: 'f', arguments: 'not json' } }] },
        { role: 'tool', tool_call_id: 'fc.1:x', content: 'ok' },
        { role: 'system', content: 'Late rule.' },
      ],
    }).request;
    const anth = toAnthropic(fromOpenAi);
    assert.equal(anth.system, 'Late rule.');
    assert.deepEqual(anth.messages, [
      { role: 'user', content: 'q' },
      { role: 'assistant', content: [{ type: 'text', text: 'Let me check.' }, { type: 'tool_use', id: 'fc_1_x', name: 'f', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'fc_1_x', content: [{ type: 'text', text: 'ok' }] }] },
    ]);
  });

  test('a block of the other protocol is refused, and kept for its own', () => {
    const anthropicOnly = parseAnthropicMessagesRequest({
      model: 'c', max_tokens: 10,
      messages: [{ role: 'user', content: [{ type: 'document', source: { type: 'url', url: 'https://example.com/a.pdf' } }] }],
    });
    assert.throws(() => toOpenAi(anthropicOnly), (e: unknown) => e instanceof AppError && e.code === 'invalid_input' && /document/.test(e.message));
    assert.deepEqual(toAnthropic(anthropicOnly).messages, [
      { role: 'user', content: [{ type: 'document', source: { type: 'url', url: 'https://example.com/a.pdf' } }] },
    ]);
    const openAiOnly = parseOpenAiChatRequest({ model: 'm', messages: [{ role: 'user', content: [{ type: 'file', file: { file_id: 'file-1' } }] }] }).request;
    assert.throws(() => toAnthropic(openAiOnly), (e: unknown) => e instanceof AppError && /'file'/.test(e.message));
    assert.deepEqual(toOpenAi(openAiOnly).messages, [{ role: 'user', content: [{ type: 'file', file: { file_id: 'file-1' } }] }]);
  });
});

describe('response translation', () => {
  const response: ChatResponse = {
    id: 'resp_1',
    model: 'claude-sonnet-4-6',
    content: [
      { type: 'text', text: 'Let me look that up.' },
      { type: 'tool_call', id: 'call_9', name: 'get_weather', arguments: '{"city":"Oslo"}' },
    ],
    stopReason: 'tool_use',
    usage: { inputTokens: 1200, outputTokens: 35, cachedInputTokens: 1000, cacheCreationTokens: 0 },
  };

  test('canonical → OpenAI JSON → canonical → Anthropic JSON → canonical keeps content, stop reason and usage', () => {
    const openAiJson = renderOpenAiChatResponse(response, 1_700_000_000);
    assert.deepEqual(openAiJson, {
      id: 'resp_1', object: 'chat.completion', created: 1_700_000_000, model: 'claude-sonnet-4-6',
      choices: [{
        index: 0,
        message: { role: 'assistant', content: 'Let me look that up.', refusal: null,
          tool_calls: [{ id: 'call_9', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }] },
        logprobs: null, finish_reason: 'tool_calls',
      }],
      usage: { prompt_tokens: 1200, completion_tokens: 35, total_tokens: 1235, prompt_tokens_details: { cached_tokens: 1000 } },
    });
    const fromOpenAi = parseOpenAiChatResponse(JSON.parse(JSON.stringify(openAiJson)));
    assert.deepEqual(fromOpenAi.response, { id: 'resp_1', model: 'claude-sonnet-4-6', content: response.content, stopReason: 'tool_use' });
    assert.deepEqual(fromOpenAi.usage, response.usage);

    const anthropicJson = renderAnthropicMessage({ ...fromOpenAi.response, usage: response.usage });
    assert.deepEqual(anthropicJson, {
      id: 'resp_1', type: 'message', role: 'assistant', model: 'claude-sonnet-4-6',
      content: [{ type: 'text', text: 'Let me look that up.' }, { type: 'tool_use', id: 'call_9', name: 'get_weather', input: { city: 'Oslo' } }],
      stop_reason: 'tool_use', stop_sequence: null,
      usage: { input_tokens: 200, output_tokens: 35, cache_read_input_tokens: 1000, cache_creation_input_tokens: 0 },
    });
    const fromAnthropic = parseAnthropicMessage(JSON.parse(JSON.stringify(anthropicJson)));
    assert.deepEqual({ ...fromAnthropic.response, usage: fromAnthropic.usage }, response);
  });

  test('stop reasons map both ways', () => {
    const cases: Array<[StopReason, string, string, StopReason, StopReason]> = [
      ['end_turn', 'stop', 'end_turn', 'end_turn', 'end_turn'],
      ['max_tokens', 'length', 'max_tokens', 'max_tokens', 'max_tokens'],
      ['tool_use', 'tool_calls', 'tool_use', 'tool_use', 'tool_use'],
      ['content_filter', 'content_filter', 'refusal', 'content_filter', 'content_filter'],
      // OpenAI has no separate word for a matched stop sequence.
      ['stop_sequence', 'stop', 'stop_sequence', 'end_turn', 'stop_sequence'],
    ];
    for (const [canonical, openAi, anthropic, fromOpenAi, fromAnthropic] of cases) {
      const r: ChatResponse = { id: 'x', model: 'm', content: [{ type: 'text', text: 't' }], stopReason: canonical, usage: response.usage };
      const o = renderOpenAiChatResponse(r);
      assert.equal(o.choices[0]?.finish_reason, openAi);
      assert.equal(parseOpenAiChatResponse(o).response.stopReason, fromOpenAi);
      const a = renderAnthropicMessage(r);
      assert.equal(a.stop_reason, anthropic);
      assert.equal(parseAnthropicMessage(a).response.stopReason, fromAnthropic);
    }
  });

  test('Anthropic cache writes count as input; reasoning travels as thinking and reasoning_content', () => {
    const parsed = parseAnthropicMessage({
      id: 'msg_1', type: 'message', role: 'assistant', model: 'claude', stop_reason: 'end_turn', stop_sequence: null,
      content: [{ type: 'thinking', thinking: 'Think.', signature: 'sig' }, { type: 'text', text: 'Done.' }, { type: 'web_search_tool_result', content: [] }],
      usage: { input_tokens: 10, output_tokens: 5, cache_read_input_tokens: 20, cache_creation_input_tokens: 30 },
    });
    assert.deepEqual(parsed.usage, { inputTokens: 60, outputTokens: 5, cachedInputTokens: 20, cacheCreationTokens: 30 });
    assert.deepEqual(parsed.response.content, [{ type: 'reasoning', text: 'Think.', signature: 'sig' }, { type: 'text', text: 'Done.' }]);
    const full = { ...parsed.response, usage: { inputTokens: 60, outputTokens: 5, cachedInputTokens: 20, cacheCreationTokens: 30 } };
    assert.deepEqual(renderAnthropicMessage(full).content, [{ type: 'thinking', thinking: 'Think.', signature: 'sig' }, { type: 'text', text: 'Done.' }]);
    assert.deepEqual(renderAnthropicMessage(full).usage, { input_tokens: 10, output_tokens: 5, cache_read_input_tokens: 20, cache_creation_input_tokens: 30 });
    const message = renderOpenAiChatResponse(full).choices[0]?.message;
    assert.equal(message?.content, 'Done.');
    assert.equal(message?.reasoning_content, 'Think.');
  });
});
