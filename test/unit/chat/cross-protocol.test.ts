/**
 * The whole text path without the gateway: an official SDK speaks one protocol to a minimal route,
 * which parses, sends through an adapter to a fake upstream of the other protocol, and encodes the
 * answer back. This is what the real routes will do, minus auth and billing.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import type { ChatRequest } from '../../../src/domain/chat/chat-request.types.ts';
import type { ChatStreamEncoder } from '../../../src/domain/chat/chat-response.types.ts';
import { isAppError } from '../../../src/domain/errors.ts';
import { renderAnthropicError } from '../../../src/protocols/anthropic-messages/anthropic-messages.errors.ts';
import { parseAnthropicMessagesRequest } from '../../../src/protocols/anthropic-messages/anthropic-messages.parser.ts';
import { renderAnthropicMessage } from '../../../src/protocols/anthropic-messages/anthropic-messages.response.ts';
import { createAnthropicStreamEncoder } from '../../../src/protocols/anthropic-messages/anthropic-stream.encoder.ts';
import { renderOpenAiError } from '../../../src/protocols/openai-chat/openai-chat.errors.ts';
import { parseOpenAiChatRequest } from '../../../src/protocols/openai-chat/openai-chat.parser.ts';
import { renderOpenAiChatResponse } from '../../../src/protocols/openai-chat/openai-chat.response.ts';
import { createOpenAiStreamEncoder } from '../../../src/protocols/openai-chat/openai-stream.encoder.ts';
import type { ChatProvider } from '../../../src/providers/chat/chat-provider.ts';
import { createChatProviderRegistry } from '../../../src/providers/registries/chat.registry.ts';
import { appErrorFromUpstream } from '../../../src/providers/chat/upstream-error.ts';
import { AnthropicMessagesFake } from '../../fakes/anthropic-messages.fake.ts';
import { OpenAiChatFake } from '../../fakes/openai-chat.fake.ts';

/** A minimal route: `/v1/chat/completions` and `/v1/messages`, both served by `provider`. */
async function startRoute(provider: () => ChatProvider): Promise<{ server: Server; origin: string }> {
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    const openAi = req.url === '/v1/chat/completions';
    const renderError = (e: Parameters<typeof renderOpenAiError>[0]) => (openAi ? renderOpenAiError(e) : renderAnthropicError(e));
    let request: ChatRequest;
    let encoder: ChatStreamEncoder;
    try {
      if (openAi) {
        const parsed = parseOpenAiChatRequest(body);
        request = parsed.request;
        encoder = createOpenAiStreamEncoder({ includeUsage: parsed.includeUsage, model: request.model });
      } else {
        request = parseAnthropicMessagesRequest(body);
        encoder = createAnthropicStreamEncoder({ model: request.model });
      }
    } catch (error) {
      if (!isAppError(error)) throw error;
      res.writeHead(error.status, { 'content-type': 'application/json' }).end(JSON.stringify(renderError(error)));
      return;
    }
    const abort = new AbortController();
    res.on('close', () => abort.abort());
    const result = await provider().send(request, { upstreamModel: 'upstream-model' }, abort.signal);
    if (!result.ok) {
      const error = appErrorFromUpstream(result.error);
      res.writeHead(error.status, { 'content-type': 'application/json' }).end(JSON.stringify(renderError(error)));
    } else if (result.kind === 'response') {
      const response = { ...result.response, model: request.model };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(openAi ? renderOpenAiChatResponse(response) : renderAnthropicMessage(response)));
    } else {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for await (const event of result.events) res.write(encoder.encode(event));
      res.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

describe('cross-protocol path with the official SDKs', () => {
  let openAiFake: OpenAiChatFake;
  let anthropicFake: AnthropicMessagesFake;
  let route: { server: Server; origin: string };
  let upstream: 'openai' | 'anthropic' = 'anthropic';
  const registry = createChatProviderRegistry();
  let providers: Record<'openai' | 'anthropic', ChatProvider>;
  before(async () => {
    openAiFake = await OpenAiChatFake.start();
    anthropicFake = await AnthropicMessagesFake.start();
    providers = {
      openai: registry.create({ type: 'openai', baseUrl: openAiFake.baseUrl, apiKey: openAiFake.apiKey, timeoutMs: 2000, concurrency: 4, options: {} }),
      anthropic: registry.create({ type: 'anthropic', baseUrl: anthropicFake.baseUrl, apiKey: anthropicFake.apiKey, timeoutMs: 2000, concurrency: 4, options: {} }),
    };
    route = await startRoute(() => providers[upstream]);
  });
  after(async () => {
    route.server.closeAllConnections();
    await new Promise((resolve) => route.server.close(resolve));
    await registry.close();
    await openAiFake.close();
    await anthropicFake.close();
  });

  test('OpenAI SDK → Claude on an Anthropic upstream: streamed tool call, then the answer using its result', async () => {
    upstream = 'anthropic';
    anthropicFake.enqueue(
      { text: 'Checking.', toolCalls: [{ id: 'toolu_01', name: 'get_weather', arguments: { city: 'Paris' } }], usage: { input: 80, output: 20, cached: 50 } },
      { text: 'It is 21 C in Paris.', usage: { input: 120, output: 9 } },
    );
    const client = new OpenAI({ baseURL: `${route.origin}/v1`, apiKey: 'sk-ours', maxRetries: 0 });
    const tools = [{ type: 'function' as const, function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }];
    const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Weather in Paris?' }];
    const first = await client.chat.completions
      .stream({ model: 'claude-sonnet-4-6', messages, tools, stream_options: { include_usage: true } })
      .finalChatCompletion();
    const call = first.choices[0]?.message.tool_calls?.[0];
    assert.ok(call?.type === 'function');
    assert.deepEqual([call.id, call.function.name, call.function.arguments], ['toolu_01', 'get_weather', '{"city":"Paris"}']);
    assert.equal(first.choices[0]?.finish_reason, 'tool_calls');
    assert.equal(first.model, 'claude-sonnet-4-6');
    assert.deepEqual(first.usage, { prompt_tokens: 130, completion_tokens: 20, total_tokens: 150, prompt_tokens_details: { cached_tokens: 50 } });

    messages.push(first.choices[0]!.message, { role: 'tool', tool_call_id: call.id, content: '21 C' });
    const second = await client.chat.completions.create({ model: 'claude-sonnet-4-6', messages, tools });
    assert.equal(second.choices[0]?.message.content, 'It is 21 C in Paris.');
    // The upstream received one user turn holding the tool result, answering the tool_use.
    const sent = anthropicFake.requests[1]?.body as { system: string; messages: unknown[] };
    assert.equal(sent.system, 'Be brief.');
    assert.deepEqual(sent.messages.at(-1), { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01', content: [{ type: 'text', text: '21 C' }] }] });
  });

  test('Anthropic SDK → an OpenAI-compatible upstream: streamed text and usage, and the upstream error in Anthropic shape', async () => {
    upstream = 'openai';
    openAiFake.enqueue({ text: 'Bonjour tout le monde', usage: { input: 30, output: 5, cached: 10 } }, { error: { status: 429, message: 'Slow down', retryAfter: 2 } });
    const client = new Anthropic({ baseURL: route.origin, apiKey: 'sk-ours', maxRetries: 0 });
    const message = await client.messages.stream({ model: 'claude-haiku-4-5', max_tokens: 64, messages: [{ role: 'user', content: 'Say hello in French' }] }).finalMessage();
    assert.deepEqual(message.content, [{ type: 'text', text: 'Bonjour tout le monde' }]);
    assert.equal(message.model, 'claude-haiku-4-5');
    assert.equal(message.stop_reason, 'end_turn');
    assert.equal(message.usage.input_tokens, 20);
    assert.equal(message.usage.cache_read_input_tokens, 10);
    assert.equal(message.usage.output_tokens, 5);
    assert.deepEqual(openAiFake.requests[0]?.body, {
      model: 'upstream-model', messages: [{ role: 'user', content: 'Say hello in French' }], stream: true, stream_options: { include_usage: true }, max_tokens: 64,
    });
    await assert.rejects(client.messages.create({ model: 'claude-haiku-4-5', max_tokens: 64, messages: [{ role: 'user', content: 'x' }] }), (error: unknown) => {
      assert.ok(error instanceof Anthropic.RateLimitError);
      assert.equal(error.type, 'rate_limit_error');
      assert.match(error.message, /Slow down/);
      return true;
    });
  });

  test('a cut upstream stream reaches the OpenAI SDK as an error, never as a finished answer', async () => {
    upstream = 'anthropic';
    anthropicFake.enqueue({ text: 'one two three four five six seven', cutAfterChunks: 5 });
    const client = new OpenAI({ baseURL: `${route.origin}/v1`, apiKey: 'sk-ours', maxRetries: 0 });
    const stream = await client.chat.completions.create({ model: 'claude-sonnet-4-6', messages: [{ role: 'user', content: 'count' }], stream: true });
    let text = '';
    await assert.rejects(
      (async () => {
        for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
      })(),
      (error: unknown) => error instanceof OpenAI.APIError && error.code === 'upstream_error',
    );
    assert.equal(text, 'one two three four ');
  });
});
