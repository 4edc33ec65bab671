/**
 * The embeddings adapter of the `openai` style and the count adapter of the `anthropic` style against
 * the strict fakes: what they send, what they make of the answers, and failures as values.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, test } from 'node:test';
import { createChatUpstreamClient } from '../../../src/providers/chat/chat-upstream-client.ts';
import type { ProviderConfig } from '../../../src/config/config.types.ts';
import type { ChatRequest } from '../../../src/domain/chat/chat-request.types.ts';
import { createAnthropicTokenCounter } from '../../../src/providers/chat/anthropic/anthropic-count-tokens.ts';
import { createOpenAiEmbeddingProvider } from '../../../src/providers/chat/openai/openai-embeddings.ts';
import { AnthropicCountTokensFake } from '../../fakes/anthropic-count-tokens.fake.ts';
import { fakeVector, OpenAiEmbeddingsFake } from '../../fakes/openai-embeddings.fake.ts';

let embeddings: OpenAiEmbeddingsFake;
let counts: AnthropicCountTokensFake;
const http = createChatUpstreamClient();

before(async () => {
  [embeddings, counts] = await Promise.all([OpenAiEmbeddingsFake.start(), AnthropicCountTokensFake.start()]);
});
beforeEach(() => {
  embeddings.reset();
  counts.reset();
});
after(async () => {
  await Promise.all([embeddings.close(), counts.close(), http.close()]);
});

function config(type: string, baseUrl: string, apiKey: string, options: Record<string, unknown> = {}): ProviderConfig {
  return { type, baseUrl, apiKey, timeoutMs: 5000, concurrency: 8, options };
}

const signal = new AbortController().signal;

test('openai embeddings: base64 asked, vectors in input order, the reported usage', async () => {
  const provider = createOpenAiEmbeddingProvider(config('openai', embeddings.baseUrl, embeddings.apiKey), http);
  const result = await provider.embed({ model: 'ours', input: ['one', 'two'], encodingFormat: 'float', dimensions: 16, user: 'u1' }, { upstreamModel: 'text-embedding-3-small', dimensions: 16 }, signal);
  assert.ok(result.ok);
  assert.deepEqual(result.embeddings.vectors, [fakeVector('"one"', 16), fakeVector('"two"', 16)]);
  assert.equal(result.embeddings.promptTokens, 2);
  assert.deepEqual(embeddings.requests[0]?.body, { model: 'text-embedding-3-small', input: ['one', 'two'], encoding_format: 'base64', dimensions: 16, user: 'u1' });
});

test('openai embeddings: floats from a server configured for them; no usage reported is estimated and flagged', async () => {
  const provider = createOpenAiEmbeddingProvider(config('openai', embeddings.baseUrl, embeddings.apiKey, { embeddingsEncoding: 'float' }), http);
  embeddings.enqueue({ omitUsage: true });
  const result = await provider.embed({ model: 'ours', input: 'hello world again', encodingFormat: 'base64' }, { upstreamModel: 'BAAI/bge-m3', dimensions: 1024 }, signal);
  assert.ok(result.ok);
  assert.equal((embeddings.requests[0]?.body as { encoding_format?: string } | undefined)?.encoding_format, 'float');
  assert.deepEqual(result.embeddings.vectors[0], fakeVector('"hello world again"', 1024));
  assert.deepEqual([result.embeddings.promptTokens, result.embeddings.estimated], [3, true]);
});

test('openai embeddings: a vector of the wrong size is a retryable 502, a refusal a 400 that is not retried', async () => {
  const provider = createOpenAiEmbeddingProvider(config('openai', embeddings.baseUrl, embeddings.apiKey), http);
  const wrong = await provider.embed({ model: 'ours', input: 'x', encodingFormat: 'float' }, { upstreamModel: 'text-embedding-3-small', dimensions: 3072 }, signal);
  assert.ok(!wrong.ok);
  assert.deepEqual([wrong.error.status, wrong.error.retryable], [502, true]);
  assert.match(wrong.error.message, /1536 dimensions where 3072 were expected/);
  const refused = await provider.embed({ model: 'ours', input: 'x', encodingFormat: 'float', dimensions: 8 }, { upstreamModel: 'text-embedding-ada-002', dimensions: 8 }, signal);
  assert.ok(!refused.ok);
  assert.deepEqual([refused.error.status, refused.error.retryable, refused.error.message], [400, false, 'This model does not support specifying dimensions.']);
});

test('anthropic count: the count endpoint with the provider headers and only MessageCountTokensParams fields', async () => {
  const counter = createAnthropicTokenCounter(config('anthropic', counts.baseUrl, counts.apiKey, { beta: 'token-counting-2024-11-01' }), http);
  const request: ChatRequest = {
    model: 'claude-sonnet-4-6',
    system: [{ type: 'text', text: 'Be brief.' }],
    messages: [{ role: 'user', content: [{ type: 'text', text: 'Hello there' }] }],
    tools: [],
    stop: ['END'],
    stream: false,
    maxOutputTokens: 1,
    temperature: 0.5,
  } as ChatRequest;
  const result = await counter.countTokens(request, { upstreamModel: 'claude-upstream' }, signal);
  assert.deepEqual(result, { ok: true, inputTokens: 8 });
  const sent = counts.requests[0];
  assert.ok(sent);
  assert.deepEqual(sent.body, { model: 'claude-upstream', messages: [{ role: 'user', content: 'Hello there' }], system: 'Be brief.' });
  assert.deepEqual([sent.headers['anthropic-version'], sent.headers['anthropic-beta'], sent.headers['x-api-key']], ['2023-06-01', 'token-counting-2024-11-01', counts.apiKey]);
  counts.enqueue({ error: { status: 529 } });
  const overloaded = await counter.countTokens(request, { upstreamModel: 'claude-upstream' }, signal);
  assert.ok(!overloaded.ok);
  assert.deepEqual([overloaded.error.status, overloaded.error.retryable], [529, true]);
});
