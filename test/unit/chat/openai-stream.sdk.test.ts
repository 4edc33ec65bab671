/** Our OpenAI-shaped output, consumed by the official `openai` SDK. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import type { ChatStreamEvent, ChatUsage } from '../../../src/domain/chat/chat-response.types.ts';
import { AppError } from '../../../src/domain/errors.ts';
import { renderOpenAiError } from '../../../src/protocols/openai-chat/openai-chat.errors.ts';
import { renderOpenAiChatResponse } from '../../../src/protocols/openai-chat/openai-chat.response.ts';
import { createOpenAiStreamEncoder } from '../../../src/protocols/openai-chat/openai-stream.encoder.ts';
import { ReplayServer } from './replay-server.helper.ts';

const usage: ChatUsage = { inputTokens: 50, outputTokens: 12, cachedInputTokens: 40, cacheCreationTokens: 0 };

function encode(events: ChatStreamEvent[], includeUsage = true): string {
  const encoder = createOpenAiStreamEncoder({ includeUsage, model: 'gpt-5.4', created: 1_700_000_000 });
  return events.map((e) => encoder.encode(e)).join('');
}

describe('OpenAI stream encoder through the OpenAI SDK', () => {
  let server: ReplayServer;
  let client: OpenAI;
  before(async () => {
    server = await new ReplayServer().start();
    client = new OpenAI({ baseURL: `${server.origin}/v1`, apiKey: 'sk-test', maxRetries: 0 });
  });
  after(() => server.close());
  const params = { model: 'gpt-5.4', messages: [{ role: 'user' as const, content: 'hi' }] };

  test('text deltas, finish reason and the usage chunk', async () => {
    server.reply = {
      contentType: 'text/event-stream',
      body: encode([
        { type: 'message_start', id: 'chatcmpl-1', model: 'upstream-name', usage: { ...usage, outputTokens: 0 } },
        { type: 'text_delta', text: 'Hel' },
        { type: 'text_delta', text: 'lo, wörld' },
        { type: 'message_end', stopReason: 'end_turn', usage },
      ]),
    };
    const stream = await client.chat.completions.create({ ...params, stream: true, stream_options: { include_usage: true } });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    assert.equal(chunks.length, 5);
    assert.equal(chunks[0]?.choices[0]?.delta.role, 'assistant');
    assert.equal(chunks[0]?.id, 'chatcmpl-1');
    assert.equal(chunks[0]?.model, 'gpt-5.4');
    assert.equal(chunks.map((c) => c.choices[0]?.delta.content ?? '').join(''), 'Hello, wörld');
    assert.equal(chunks[3]?.choices[0]?.finish_reason, 'stop');
    assert.deepEqual(chunks[4]?.choices, []);
    assert.deepEqual(chunks[4]?.usage, { prompt_tokens: 50, completion_tokens: 12, total_tokens: 62, prompt_tokens_details: { cached_tokens: 40 } });
  });

  test('streamed tool-call argument deltas assemble into complete calls (reasoning rides as reasoning_content)', async () => {
    server.reply = {
      contentType: 'text/event-stream',
      body: encode([
        { type: 'message_start', id: 'chatcmpl-2', model: 'x', usage },
        { type: 'reasoning_delta', text: 'Need weather.' },
        { type: 'reasoning_signature', signature: 'sig' },
        { type: 'text_delta', text: 'Checking.' },
        { type: 'tool_call_start', index: 0, id: 'call_a', name: 'get_weather' },
        { type: 'tool_call_delta', index: 0, arguments: '{"ci' },
        { type: 'tool_call_delta', index: 0, arguments: 'ty":"Pa' },
        { type: 'tool_call_delta', index: 0, arguments: 'ris"}' },
        { type: 'tool_call_start', index: 1, id: 'call_b', name: 'get_time' },
        { type: 'tool_call_delta', index: 1, arguments: '{}' },
        { type: 'message_end', stopReason: 'tool_use', usage },
      ]),
    };
    const runner = client.chat.completions.stream({ ...params, stream_options: { include_usage: true } });
    const final = await runner.finalChatCompletion();
    const message = final.choices[0]?.message;
    assert.equal(message?.content, 'Checking.');
    assert.equal(final.choices[0]?.finish_reason, 'tool_calls');
    assert.deepEqual(message?.tool_calls?.map((c) => c.type === 'function' ? [c.id, c.function.name, c.function.arguments] : []), [
      ['call_a', 'get_weather', '{"city":"Paris"}'],
      ['call_b', 'get_time', '{}'],
    ]);
    assert.equal(final.usage?.prompt_tokens, 50);
    assert.match(server.reply.body, /"delta":\{"reasoning_content":"Need weather."\}/);
  });

  test('a cut stream ends with an error frame, no [DONE], and the SDK raises it', async () => {
    const body = encode([
      { type: 'message_start', id: 'chatcmpl-3', model: 'x', usage },
      { type: 'text_delta', text: 'Partial' },
      { type: 'error', error: { status: 502, message: 'The upstream closed the stream before it finished.' }, usage: { ...usage, outputTokens: 3 } },
    ]);
    assert.equal(body.includes('[DONE]'), false);
    assert.match(body, /"choices":\[\],"usage":\{"prompt_tokens":50,"completion_tokens":3/);
    server.reply = { contentType: 'text/event-stream', body };
    const stream = await client.chat.completions.create({ ...params, stream: true, stream_options: { include_usage: true } });
    const seen: string[] = [];
    await assert.rejects(
      (async () => {
        for await (const chunk of stream) seen.push(chunk.choices[0]?.delta.content ?? '');
      })(),
      (error: unknown) => {
        assert.ok(error instanceof OpenAI.APIError);
        assert.equal(error.message, 'The upstream closed the stream before it finished.');
        assert.equal(error.code, 'upstream_error');
        assert.equal(error.type, 'server_error');
        return true;
      },
    );
    assert.equal(seen.join(''), 'Partial');
  });

  test('without include_usage there is no usage chunk', async () => {
    const body = encode([{ type: 'text_delta', text: 'x' }, { type: 'message_end', stopReason: 'max_tokens', usage }], false);
    assert.equal(body.includes('usage'), false);
    server.reply = { contentType: 'text/event-stream', body };
    const stream = await client.chat.completions.create({ ...params, stream: true });
    const finish = [];
    for await (const chunk of stream) finish.push(chunk.choices[0]?.finish_reason ?? null);
    assert.deepEqual(finish, [null, null, 'length']);
  });

  test('the non-streaming completion parses', async () => {
    server.reply = {
      contentType: 'application/json',
      body: JSON.stringify(renderOpenAiChatResponse({
        id: 'chatcmpl-4', model: 'gpt-5.4', stopReason: 'end_turn', usage,
        content: [{ type: 'text', text: 'Fine.' }],
      })),
    };
    const completion = await client.chat.completions.create(params);
    assert.equal(completion.choices[0]?.message.content, 'Fine.');
    assert.equal(completion.choices[0]?.finish_reason, 'stop');
    assert.equal(completion.usage?.prompt_tokens_details?.cached_tokens, 40);
  });

  test('error bodies surface as the SDK error classes with our code', async () => {
    server.reply = { status: 402, contentType: 'application/json', body: JSON.stringify(renderOpenAiError(new AppError('insufficient_balance', 'Balance too low.'))) };
    await assert.rejects(client.chat.completions.create(params), (error: unknown) => {
      assert.ok(error instanceof OpenAI.APIError);
      assert.equal(error.status, 402);
      assert.equal(error.code, 'insufficient_balance');
      assert.equal(error.type, 'insufficient_quota');
      return true;
    });
    server.reply = { status: 400, contentType: 'application/json', body: JSON.stringify(renderOpenAiError(new AppError('invalid_input', 'n must be 1.', { param: 'n' }))) };
    await assert.rejects(client.chat.completions.create(params), (error: unknown) => {
      assert.ok(error instanceof OpenAI.BadRequestError);
      assert.equal(error.param, 'n');
      assert.equal(error.code, 'invalid_input');
      return true;
    });
  });
});
