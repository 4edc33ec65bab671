import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AppError } from '../../../src/domain/errors.ts';
import { parseOpenAiChatRequest } from '../../../src/protocols/openai-chat/openai-chat.parser.ts';

function refusal(body: unknown, param: string, message?: RegExp): void {
  assert.throws(
    () => parseOpenAiChatRequest(body),
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

const base = { model: 'gpt-5.4', messages: [{ role: 'user', content: 'Hi' }] };

describe('OpenAI chat parser: refusals', () => {
  test('missing or empty model and messages', () => {
    refusal({ messages: base.messages }, 'model', /required/);
    refusal({ model: '', messages: base.messages }, 'model');
    refusal({ model: 'm' }, 'messages', /required/);
    refusal({ model: 'm', messages: [] }, 'messages', /at least one/);
    refusal({ model: 'm', messages: 'hi' }, 'messages', /array/);
    refusal('not an object', 'body');
  });

  test('n above 1 is refused, n = 1 accepted', () => {
    refusal({ ...base, n: 2 }, 'n', /must be 1/);
    refusal({ ...base, n: 0 }, 'n');
    refusal({ ...base, n: 1.5 }, 'n', /integer/);
    assert.equal(parseOpenAiChatRequest({ ...base, n: 1 }).request.model, 'gpt-5.4');
  });

  test('temperature outside 0 to 2, top_p outside 0 to 1', () => {
    refusal({ ...base, temperature: 2.1 }, 'temperature', /at most 2/);
    refusal({ ...base, temperature: -0.1 }, 'temperature', /at least 0/);
    refusal({ ...base, temperature: '1' }, 'temperature', /number/);
    refusal({ ...base, top_p: 1.5 }, 'top_p');
    assert.equal(parseOpenAiChatRequest({ ...base, temperature: 2 }).request.temperature, 2);
  });

  test('max_tokens and max_completion_tokens must be positive integers', () => {
    refusal({ ...base, max_tokens: 0 }, 'max_tokens', /positive integer/);
    refusal({ ...base, max_tokens: 10.5 }, 'max_tokens');
    refusal({ ...base, max_tokens: -3 }, 'max_tokens');
    refusal({ ...base, max_completion_tokens: '100' }, 'max_completion_tokens');
  });

  test('bad roles', () => {
    refusal({ model: 'm', messages: [{ role: 'robot', content: 'x' }] }, 'messages[0].role', /one of system, developer, user, assistant, tool/);
    refusal({ model: 'm', messages: [{ content: 'x' }] }, 'messages[0].role', /required/);
    refusal({ model: 'm', messages: [{ role: 'function', name: 'f', content: 'x' }] }, 'messages[0].role', /deprecated/);
  });

  test('bad content parts', () => {
    refusal({ model: 'm', messages: [{ role: 'user', content: [{ type: 'video', url: 'x' }] }] }, 'messages[0].content[0].type');
    refusal({ model: 'm', messages: [{ role: 'user', content: [{ type: 'text' }] }] }, 'messages[0].content[0].text');
    refusal({ model: 'm', messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'ftp://x/y.png' } }] }] },
      'messages[0].content[0].image_url.url');
    refusal({ model: 'm', messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:text/plain;base64,aGk=' } }] }] },
      'messages[0].content[0].image_url.url');
    refusal({ model: 'm', messages: [{ role: 'user', content: 42 }] }, 'messages[0].content', /array/);
    refusal({ model: 'm', messages: [{ role: 'system', content: [{ type: 'image_url', image_url: { url: 'https://x/y.png' } }] }] },
      'messages[0].content[0].type', /'text'/);
    refusal({ model: 'm', messages: [{ role: 'tool', content: 'r' }] }, 'messages[0].tool_call_id');
  });

  test('bad tools, tool_choice, response_format, stop', () => {
    refusal({ ...base, tools: [{ type: 'function', function: { name: 'has space' } }] }, 'tools[0].function.name');
    refusal({ ...base, tools: [{ type: 'function', function: { name: 'f', parameters: 'x' } }] }, 'tools[0].function.parameters');
    refusal({ ...base, tool_choice: 'always' }, 'tool_choice');
    refusal({ ...base, response_format: { type: 'yaml' } }, 'response_format.type');
    refusal({ ...base, response_format: { type: 'json_schema', json_schema: {} } }, 'response_format.json_schema.name');
    refusal({ ...base, stop: [1] }, 'stop[0]');
  });
});

describe('OpenAI chat parser: canonical form', () => {
  test('a full request becomes the canonical request with passthrough', () => {
    const parsed = parseOpenAiChatRequest({
      model: 'gpt-5.4',
      messages: [
        { role: 'developer', content: 'Be brief.' },
        { role: 'system', content: [{ type: 'text', text: 'Use metric units.' }] },
        { role: 'user', name: 'ana', content: [
          { type: 'text', text: 'What is this?' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'low' } },
          { type: 'image_url', image_url: { url: 'https://example.com/cat.jpg' } },
        ] },
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '{"q":"cat"}' } }] },
        { role: 'tool', tool_call_id: 'call_1', content: 'A cat.' },
        { role: 'system', content: 'Now answer.' },
      ],
      max_completion_tokens: 300,
      max_tokens: 100,
      temperature: 0.5,
      top_p: 0.9,
      stop: 'END',
      stream: true,
      stream_options: { include_usage: true },
      tools: [{ type: 'function', function: { name: 'lookup', description: 'Search', parameters: { type: 'object', properties: { q: { type: 'string' } } }, strict: true } }],
      tool_choice: { type: 'function', function: { name: 'lookup' } },
      parallel_tool_calls: false,
      response_format: { type: 'json_schema', json_schema: { name: 'answer', schema: { type: 'object' }, strict: true } },
      user: 'user-42',
      seed: 7,
      frequency_penalty: 0.2,
    });
    assert.equal(parsed.includeUsage, true);
    const r = parsed.request;
    assert.deepEqual(r.system, [{ type: 'text', text: 'Be brief.' }, { type: 'text', text: 'Use metric units.' }]);
    assert.equal(r.maxOutputTokens, 300);
    assert.equal(r.temperature, 0.5);
    assert.equal(r.topP, 0.9);
    assert.deepEqual(r.stop, ['END']);
    assert.equal(r.stream, true);
    assert.equal(r.userId, 'user-42');
    assert.equal(r.parallelToolCalls, false);
    assert.deepEqual(r.toolChoice, { type: 'tool', name: 'lookup' });
    assert.deepEqual(r.responseFormat, { type: 'json_schema', name: 'answer', schema: { type: 'object' }, strict: true });
    assert.deepEqual(r.tools, [{ type: 'function', name: 'lookup', description: 'Search', parameters: { type: 'object', properties: { q: { type: 'string' } } }, strict: true }]);
    // Both change the answer: an Anthropic route refuses the request rather than drop them.
    assert.deepEqual(r.passthrough, { protocol: 'openai', fields: { seed: 7, frequency_penalty: 0.2 }, keepAcross: ['seed', 'frequency_penalty'] });
    assert.equal(r.priceOptions, undefined);
    assert.deepEqual(r.messages, [
      { role: 'user', name: 'ana', content: [
        { type: 'text', text: 'What is this?' },
        { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'iVBORw0KGgo=' }, detail: 'low' },
        { type: 'image', source: { kind: 'url', url: 'https://example.com/cat.jpg' } },
      ] },
      { role: 'assistant', content: [], toolCalls: [{ id: 'call_1', name: 'lookup', arguments: '{"q":"cat"}' }] },
      { role: 'tool', toolCallId: 'call_1', content: [{ type: 'text', text: 'A cat.' }], isError: false },
      { role: 'system', content: [{ type: 'text', text: 'Now answer.' }] },
    ]);
  });

  test('defaults: no stream, no usage chunk, max_tokens alias, file parts kept as native', () => {
    const file = { type: 'file', file: { file_id: 'file-abc' } };
    const parsed = parseOpenAiChatRequest({ model: 'm', messages: [{ role: 'user', content: [file] }], max_tokens: 64 });
    assert.equal(parsed.includeUsage, false);
    assert.equal(parsed.request.stream, false);
    assert.equal(parsed.request.maxOutputTokens, 64);
    assert.deepEqual(parsed.request.stop, []);
    assert.deepEqual(parsed.request.messages[0], { role: 'user', content: [{ type: 'native', protocol: 'openai', value: file }] });
  });
});
