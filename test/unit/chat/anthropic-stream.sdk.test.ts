/** Our Anthropic-shaped output, consumed by the official `@anthropic-ai/sdk`. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import type { ChatStreamEvent, ChatUsage } from '../../../src/domain/chat/chat-response.types.ts';
import { emptyUsage } from '../../../src/domain/chat/chat-response.types.ts';
import { AppError } from '../../../src/domain/errors.ts';
import { renderAnthropicError } from '../../../src/protocols/anthropic-messages/anthropic-messages.errors.ts';
import { renderAnthropicMessage } from '../../../src/protocols/anthropic-messages/anthropic-messages.response.ts';
import { createAnthropicStreamEncoder } from '../../../src/protocols/anthropic-messages/anthropic-stream.encoder.ts';
import { ReplayServer } from './replay-server.helper.ts';

const usage: ChatUsage = { inputTokens: 300, outputTokens: 42, cachedInputTokens: 200, cacheCreationTokens: 50 };

function encode(events: ChatStreamEvent[]): string {
  const encoder = createAnthropicStreamEncoder({ model: 'claude-sonnet-4-6' });
  return events.map((e) => encoder.encode(e)).join('');
}

describe('Anthropic stream encoder through the Anthropic SDK', () => {
  let server: ReplayServer;
  let client: Anthropic;
  before(async () => {
    server = await new ReplayServer().start();
    client = new Anthropic({ baseURL: server.origin, apiKey: 'sk-ant-test', maxRetries: 0 });
  });
  after(() => server.close());
  const params = { model: 'claude-sonnet-4-6', max_tokens: 100, messages: [{ role: 'user' as const, content: 'hi' }] };

  test('thinking, text and tool_use blocks with input_json_delta assemble into the final message', async () => {
    server.reply = {
      contentType: 'text/event-stream',
      body: encode([
        { type: 'message_start', id: 'msg_1', model: 'upstream', usage: { ...usage, outputTokens: 0 } },
        { type: 'reasoning_delta', text: 'The user wants ' },
        { type: 'reasoning_delta', text: 'weather.' },
        { type: 'reasoning_signature', signature: 'sig-abc' },
        { type: 'text_delta', text: 'Let me ' },
        { type: 'text_delta', text: 'check.' },
        { type: 'tool_call_start', index: 0, id: 'toolu_1', name: 'get_weather' },
        { type: 'tool_call_delta', index: 0, arguments: '{"city": "Pa' },
        { type: 'tool_call_delta', index: 0, arguments: 'ris", "days": 2}' },
        { type: 'message_end', stopReason: 'tool_use', usage },
      ]),
    };
    const stream = client.messages.stream(params);
    const texts: string[] = [];
    stream.on('text', (delta) => texts.push(delta));
    const message = await stream.finalMessage();
    assert.deepEqual(texts, ['Let me ', 'check.']);
    assert.equal(message.id, 'msg_1');
    assert.equal(message.model, 'claude-sonnet-4-6');
    assert.deepEqual(message.content.map((b) => ({ ...b })), [
      { type: 'thinking', thinking: 'The user wants weather.', signature: 'sig-abc' },
      { type: 'text', text: 'Let me check.' },
      { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris', days: 2 } },
    ]);
    assert.equal(message.stop_reason, 'tool_use');
    assert.equal(message.stop_sequence, null);
    assert.equal(message.usage.input_tokens, 50);
    assert.equal(message.usage.output_tokens, 42);
    assert.equal(message.usage.cache_read_input_tokens, 200);
    assert.equal(message.usage.cache_creation_input_tokens, 50);
  });

  test('input usage unknown at message_start (an OpenAI upstream) is filled by message_delta', async () => {
    server.reply = {
      contentType: 'text/event-stream',
      body: encode([
        { type: 'message_start', id: 'chatcmpl-x', model: 'gpt', usage: emptyUsage() },
        { type: 'text_delta', text: 'Hi' },
        { type: 'message_end', stopReason: 'stop_sequence', stopSequence: '###', usage: { inputTokens: 17, outputTokens: 1, cachedInputTokens: 0, cacheCreationTokens: 0 } },
      ]),
    };
    const message = await client.messages.stream(params).finalMessage();
    assert.equal(message.usage.input_tokens, 17);
    assert.equal(message.usage.output_tokens, 1);
    assert.equal(message.stop_reason, 'stop_sequence');
    assert.equal(message.stop_sequence, '###');
  });

  test('raw events come in the documented order, with a ping', async () => {
    const body = encode([
      { type: 'message_start', id: 'msg_2', model: 'm', usage },
      { type: 'text_delta', text: 'a' },
      { type: 'message_end', stopReason: 'end_turn', usage },
    ]);
    server.reply = { contentType: 'text/event-stream', body };
    const stream = await client.messages.create({ ...params, stream: true });
    const types: string[] = [];
    for await (const event of stream) types.push(event.type);
    assert.deepEqual(types, ['message_start', 'content_block_start', 'content_block_delta', 'content_block_stop', 'message_delta', 'message_stop']);
    assert.match(body, /^event: message_start\n.*\n\nevent: ping\ndata: \{"type":"ping"\}\n\n/);
  });

  test('a cut stream ends with event: error, no message_stop, and the SDK raises it', async () => {
    const body = encode([
      { type: 'message_start', id: 'msg_3', model: 'm', usage },
      { type: 'text_delta', text: 'Partial' },
      { type: 'error', error: { status: 529, message: 'Overloaded' }, usage },
    ]);
    assert.equal(body.includes('message_stop'), false);
    server.reply = { contentType: 'text/event-stream', body };
    const stream = client.messages.stream(params);
    const texts: string[] = [];
    stream.on('text', (t) => texts.push(t));
    await assert.rejects(stream.finalMessage(), (error: unknown) => {
      assert.ok(error instanceof Anthropic.APIError);
      assert.equal(error.type, 'overloaded_error');
      assert.match(error.message, /Overloaded/);
      return true;
    });
    assert.deepEqual(texts, ['Partial']);
  });

  test('the non-streaming message parses', async () => {
    server.reply = {
      contentType: 'application/json',
      body: JSON.stringify(renderAnthropicMessage({
        id: 'msg_4', model: 'claude-sonnet-4-6', stopReason: 'max_tokens', usage,
        content: [{ type: 'text', text: 'Cut' }],
      })),
    };
    const message = await client.messages.create(params);
    assert.deepEqual(message.content, [{ type: 'text', text: 'Cut' }]);
    assert.equal(message.stop_reason, 'max_tokens');
    assert.equal(message.usage.input_tokens, 50);
  });

  test('error bodies carry Anthropic type names, billing_error for 402', async () => {
    const cases: Array<[AppError, number, string]> = [
      [new AppError('insufficient_balance', 'Top up.'), 402, 'billing_error'],
      [new AppError('invalid_input', 'max_tokens is required.', { param: 'max_tokens' }), 400, 'invalid_request_error'],
      [new AppError('unauthorized', 'Bad key.'), 401, 'authentication_error'],
      [new AppError('rate_limited', 'Slow down.'), 429, 'rate_limit_error'],
      [new AppError('model_not_found', 'No such model.'), 404, 'not_found_error'],
    ];
    for (const [appError, status, type] of cases) {
      const body = renderAnthropicError(appError, 'req_1');
      assert.deepEqual(body, { type: 'error', error: { type, message: appError.message, code: appError.code }, request_id: 'req_1' });
      server.reply = { status, contentType: 'application/json', body: JSON.stringify(body) };
      await assert.rejects(client.messages.create(params), (error: unknown) => {
        assert.ok(error instanceof Anthropic.APIError);
        assert.equal(error.status, status);
        assert.equal(error.type, type);
        return true;
      });
    }
  });
});
