import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AppError } from '../../../src/domain/errors.ts';
import { parseAnthropicMessagesRequest } from '../../../src/protocols/anthropic-messages/anthropic-messages.parser.ts';

function refusal(body: unknown, param: string, message?: RegExp): void {
  assert.throws(
    () => parseAnthropicMessagesRequest(body),
    (error: unknown) => {
      assert.ok(error instanceof AppError);
      assert.equal(error.code, 'invalid_input');
      assert.equal(error.status, 400);
      assert.equal(error.param, param);
      if (message) assert.match(error.message, message);
      return true;
    },
  );
}

const base = { model: 'claude-sonnet-4-6', max_tokens: 256, messages: [{ role: 'user', content: 'Hi' }] };

describe('Anthropic messages parser: refusals', () => {
  test('model, max_tokens and messages are required', () => {
    refusal({ max_tokens: 10, messages: base.messages }, 'model', /required/);
    refusal({ model: 'c', messages: base.messages }, 'max_tokens', /required/);
    refusal({ model: 'c', max_tokens: 10 }, 'messages', /required/);
    refusal({ model: 'c', max_tokens: 10, messages: [] }, 'messages');
  });

  test('max_tokens must be a positive integer', () => {
    refusal({ ...base, max_tokens: 0 }, 'max_tokens', /positive integer/);
    refusal({ ...base, max_tokens: 1.5 }, 'max_tokens');
    refusal({ ...base, max_tokens: '10' }, 'max_tokens');
  });

  test('temperature outside 0 to 1', () => {
    refusal({ ...base, temperature: 1.2 }, 'temperature', /at most 1/);
    refusal({ ...base, temperature: -1 }, 'temperature');
    assert.equal(parseAnthropicMessagesRequest({ ...base, temperature: 1 }).temperature, 1);
  });

  test('bad roles and blocks', () => {
    refusal({ ...base, messages: [{ role: 'tool', content: 'x' }] }, 'messages[0].role', /user, assistant, system/);
    refusal({ ...base, messages: [{ role: 'user', content: [{ type: 'video' }] }] }, 'messages[0].content[0].type');
    refusal({ ...base, messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'text/plain', data: 'x' } }] }] },
      'messages[0].content[0].source.media_type');
    refusal({ ...base, messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'ftp' } }] }] }, 'messages[0].content[0].source.type');
    refusal({ ...base, messages: [{ role: 'user', content: [{ type: 'tool_result' }] }] }, 'messages[0].content[0].tool_use_id');
    refusal({ ...base, messages: [{ role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'f', input: 'x' }] }] },
      'messages[0].content[0].input');
    refusal({ ...base, messages: [{ role: 'assistant', content: [{ type: 'tool_result', tool_use_id: 't' }] }] }, 'messages[0].content[0].type');
    refusal({ ...base, system: [{ type: 'image' }] }, 'system[0].type');
  });

  test('bad tools and tool_choice', () => {
    refusal({ ...base, tools: [{ name: 'f' }] }, 'tools[0].input_schema');
    refusal({ ...base, tool_choice: { type: 'sometimes' } }, 'tool_choice.type');
    refusal({ ...base, tool_choice: { type: 'tool' } }, 'tool_choice.name');
  });
});

describe('Anthropic messages parser: canonical form', () => {
  test('tool results become tool messages; blocks, cache marks and passthrough are kept', () => {
    const r = parseAnthropicMessagesRequest({
      model: 'claude-sonnet-4-6',
      max_tokens: 1024,
      system: [{ type: 'text', text: 'You are terse.', cache_control: { type: 'ephemeral' } }],
      messages: [
        { role: 'user', content: [
          { type: 'text', text: 'Weather in Paris?' },
          { type: 'image', source: { type: 'url', url: 'https://example.com/sky.png' } },
        ] },
        { role: 'assistant', content: [
          { type: 'thinking', thinking: 'Need the tool.', signature: 'sig1' },
          { type: 'text', text: 'Checking.' },
          { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } },
          { type: 'tool_use', id: 'toolu_2', name: 'get_time', input: {} },
        ] },
        { role: 'user', content: [
          { type: 'tool_result', tool_use_id: 'toolu_1', content: '21 C' },
          { type: 'tool_result', tool_use_id: 'toolu_2', content: [{ type: 'text', text: 'failed' }], is_error: true },
          { type: 'text', text: 'Thanks' },
          { type: 'document', source: { type: 'url', url: 'https://example.com/a.pdf' } },
        ] },
      ],
      temperature: 0.3,
      stop_sequences: ['###'],
      stream: true,
      tools: [
        { name: 'get_weather', description: 'Weather', input_schema: { type: 'object', properties: { city: { type: 'string' } } }, cache_control: { type: 'ephemeral' } },
        { type: 'web_search_20250305', name: 'web_search', max_uses: 2 },
      ],
      tool_choice: { type: 'any', disable_parallel_tool_use: true },
      metadata: { user_id: 'u-9' },
      output_config: { format: { type: 'json_schema', schema: { type: 'object' } }, effort: 'low' },
      top_k: 5,
      thinking: { type: 'enabled', budget_tokens: 2000 },
    });
    assert.deepEqual(r.system, [{ type: 'text', text: 'You are terse.', cacheControl: { type: 'ephemeral' } }]);
    assert.equal(r.maxOutputTokens, 1024);
    assert.equal(r.temperature, 0.3);
    assert.deepEqual(r.stop, ['###']);
    assert.equal(r.stream, true);
    assert.deepEqual(r.toolChoice, { type: 'required' });
    assert.equal(r.parallelToolCalls, false);
    assert.equal(r.userId, 'u-9');
    assert.deepEqual(r.responseFormat, { type: 'json_schema', name: 'response', schema: { type: 'object' } });
    assert.deepEqual(r.passthrough, {
      protocol: 'anthropic',
      fields: {
        metadata: { user_id: 'u-9' },
        output_config: { format: { type: 'json_schema', schema: { type: 'object' } }, effort: 'low' },
        top_k: 5,
        thinking: { type: 'enabled', budget_tokens: 2000 },
      },
      // What an OpenAI-style route could not honour: it refuses the request instead of dropping them.
      keepAcross: ['output_config', 'top_k', 'thinking'],
    });
    // The cache mark on the tool and the web search tool (at most 2 searches) change the price.
    assert.deepEqual(r.priceOptions, { cacheWrites: '5m', webSearches: { max: 2, param: 'tools[1]' } });
    assert.deepEqual(r.tools, [
      { type: 'function', name: 'get_weather', description: 'Weather', parameters: { type: 'object', properties: { city: { type: 'string' } } }, cacheControl: { type: 'ephemeral' } },
      { type: 'native', protocol: 'anthropic', value: { type: 'web_search_20250305', name: 'web_search', max_uses: 2 } },
    ]);
    assert.deepEqual(r.messages, [
      { role: 'user', content: [{ type: 'text', text: 'Weather in Paris?' }, { type: 'image', source: { kind: 'url', url: 'https://example.com/sky.png' } }] },
      {
        role: 'assistant',
        content: [{ type: 'reasoning', text: 'Need the tool.', signature: 'sig1' }, { type: 'text', text: 'Checking.' }],
        toolCalls: [{ id: 'toolu_1', name: 'get_weather', arguments: '{"city":"Paris"}' }, { id: 'toolu_2', name: 'get_time', arguments: '{}' }],
      },
      { role: 'tool', toolCallId: 'toolu_1', content: [{ type: 'text', text: '21 C' }], isError: false },
      { role: 'tool', toolCallId: 'toolu_2', content: [{ type: 'text', text: 'failed' }], isError: true },
      { role: 'user', content: [
        { type: 'text', text: 'Thanks' },
        { type: 'native', protocol: 'anthropic', value: { type: 'document', source: { type: 'url', url: 'https://example.com/a.pdf' } } },
      ] },
    ]);
  });

  test('string system and base64 images', () => {
    const r = parseAnthropicMessagesRequest({
      ...base,
      system: 'Be kind.',
      messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: '/9j/4AAQ' } }] }],
    });
    assert.deepEqual(r.system, [{ type: 'text', text: 'Be kind.' }]);
    assert.deepEqual(r.messages[0], { role: 'user', content: [{ type: 'image', source: { kind: 'base64', mediaType: 'image/jpeg', data: '/9j/4AAQ' } }] });
    assert.equal(r.stream, false);
    assert.deepEqual(r.passthrough, { protocol: 'anthropic', fields: {}, keepAcross: [] });
    assert.equal(r.priceOptions, undefined);
  });
});
