/**
 * The pieces of embeddings and count_tokens that need no gateway: the request's bounds and price,
 * the local provider's vectors, the answer's rendering, and the approximate token count.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { builtInEmbeddingModels } from '../../../src/domain/catalog/models/embedding-models.ts';
import { approximatePromptTokens, approximateTextTokens } from '../../../src/domain/chat/token-count.estimator.ts';
import type { ChatRequest } from '../../../src/domain/chat/chat-request.types.ts';
import { assertEmbeddingInputFits, embeddingCostMicro, embeddingDimensions, embeddingTokenBound } from '../../../src/domain/embeddings/embedding-request.ts';
import { isAppError } from '../../../src/domain/errors.ts';
import { renderOpenAiEmbeddings } from '../../../src/protocols/openai-embeddings/openai-embeddings.response.ts';
import { localVector } from '../../../src/providers/chat/local/local-embeddings.ts';

const [small, , bge] = builtInEmbeddingModels();

function refusedOn(param: string) {
  return (error: unknown) => isAppError(error) && error.code === 'invalid_input' && error.param === param;
}

test('the cost is tokens × price / 1,000,000, rounded up once', () => {
  assert.equal(embeddingCostMicro(20_000, 1), 1);
  assert.equal(embeddingCostMicro(20_000, 50), 1);
  assert.equal(embeddingCostMicro(20_000, 50_000), 1000);
  assert.equal(embeddingCostMicro(130_000, 12_345), 1605);
  assert.equal(embeddingCostMicro(130_000, 0), 0);
  // Far above 2^53 in the product: exact.
  assert.equal(embeddingCostMicro(999_999_999, 300_000), 300_000_000);
});

test('the hold bound is UTF-8 bytes for texts and the length of token arrays', () => {
  assert.equal(embeddingTokenBound('héllo'), 6);
  assert.equal(embeddingTokenBound(['ab', '日本']), 8);
  assert.equal(embeddingTokenBound([1, 2, 3]), 3);
  assert.equal(embeddingTokenBound([[1, 2], [3]]), 3);
});

test('dimensions: the default, a size in range, refused outside it or on a fixed-size model', () => {
  assert.ok(small && bge);
  assert.equal(embeddingDimensions(small, { model: small.id, input: 'x', encodingFormat: 'float' }), 1536);
  assert.equal(embeddingDimensions(small, { model: small.id, input: 'x', encodingFormat: 'float', dimensions: 256 }), 256);
  assert.throws(() => embeddingDimensions(small, { model: small.id, input: 'x', encodingFormat: 'float', dimensions: 1537 }), refusedOn('dimensions'));
  assert.throws(() => embeddingDimensions(bge, { model: bge.id, input: 'x', encodingFormat: 'float', dimensions: 512 }), refusedOn('dimensions'));
  assert.equal(embeddingDimensions(bge, { model: bge.id, input: 'x', encodingFormat: 'float', dimensions: 1024 }), 1024);
  assert.throws(() => assertEmbeddingInputFits(small, Array.from({ length: 8192 }, () => 1)), refusedOn('input'));
  assert.throws(() => assertEmbeddingInputFits(small, [[1], Array.from({ length: 8192 }, () => 1)]), refusedOn('input[1]'));
  assert.throws(() => assertEmbeddingInputFits(small, Array.from({ length: 40 }, () => Array.from({ length: 8000 }, () => 1))), refusedOn('input'));
});

function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  for (let i = 0; i < a.length; i++) dot += (a[i] as number) * (b[i] as number);
  return dot;
}

test('local vectors: deterministic, unit length, closer when inputs share words', () => {
  const cat = localVector(['the', 'cat', 'sat', 'on', 'the', 'mat'], 256);
  assert.deepEqual(cat, localVector(['the', 'cat', 'sat', 'on', 'the', 'mat'], 256));
  assert.ok(Math.abs(cosine(cat, cat) - 1) < 1e-5);
  const similar = localVector(['the', 'cat', 'sat', 'on', 'a', 'mat'], 256);
  const other = localVector(['quantum', 'field', 'theory'], 256);
  assert.ok(cosine(cat, similar) > cosine(cat, other) + 0.3, `${cosine(cat, similar)} vs ${cosine(cat, other)}`);
  assert.ok(localVector([], 16).every((x) => Number.isFinite(x)));
  assert.equal(localVector(['x'], 1).length, 1);
});

test('the answer renders in pieces, floats back to the same float32, base64 as little-endian float32', () => {
  const vectors = Array.from({ length: 9000 }, (_, i) => localVector([`w${i}`], 8));
  const pieces = [...renderOpenAiEmbeddings({ model: 'm', vectors, promptTokens: 7, encoding: 'float' })];
  assert.equal(pieces.length, 3, 'pieces of about 32,768 values, and the end');
  const body = JSON.parse(pieces.join('')) as { object: string; data: Array<{ object: string; index: number; embedding: number[] }>; model: string; usage: unknown };
  assert.deepEqual([body.object, body.model, body.usage], ['list', 'm', { prompt_tokens: 7, total_tokens: 7 }]);
  for (const [i, item] of body.data.entries()) {
    assert.equal(item.index, i);
    assert.deepEqual(Float32Array.from(item.embedding), vectors[i]);
  }
  const b64 = JSON.parse([...renderOpenAiEmbeddings({ model: 'm', vectors: vectors.slice(0, 1), promptTokens: 1, encoding: 'base64' })].join('')) as { data: Array<{ embedding: string }> };
  const bytes = Buffer.from(b64.data[0]?.embedding ?? '', 'base64');
  const first = vectors[0] as Float32Array;
  for (let i = 0; i < first.length; i++) assert.equal(bytes.readFloatLE(i * 4), first[i]);
});

function request(text: string, extra: Partial<ChatRequest> = {}): ChatRequest {
  return { model: 'm', system: [], messages: [{ role: 'user', content: [{ type: 'text', text }] }], tools: [], stop: [], stream: false, ...extra } as ChatRequest;
}

test('the approximate count is near what byte-pair tokenizers give, far below the hold bound', () => {
  // English prose: about 1.3 tokens per word with cl100k/Claude; one per word and mark here.
  const prose = 'The quick brown fox jumps over the lazy dog, and then it runs back home again.';
  assert.equal(approximateTextTokens(prose), 18);
  assert.ok(approximateTextTokens(prose) < Buffer.byteLength(prose) / 3);
  // A long identifier is several tokens; Chinese is about one per character.
  assert.equal(approximateTextTokens('internationalization'), 4);
  assert.equal(approximateTextTokens('你好世界'), 4);
  assert.equal(approximateTextTokens('привет мир'), 5);
  // Framing, tools and images.
  assert.equal(approximatePromptTokens(request('hi')), 3 + 1);
  const withTool = approximatePromptTokens(request('hi', { tools: [{ type: 'function', name: 'get_weather', description: 'Weather', parameters: { type: 'object' } }] } as Partial<ChatRequest>));
  assert.ok(withTool > 350, `${withTool}`);
  const image: ChatRequest = { ...request('x'), messages: [{ role: 'user', content: [{ type: 'image', source: { kind: 'url', url: 'https://e.test/a.png' } }] }] } as ChatRequest;
  assert.equal(approximatePromptTokens(image), 3 + 1600);
});
