/**
 * The bound on an answer's values (inputs × dimensions) and the whole-body float encoder the CPU pool
 * runs: the same bytes as the piecewise renderer, for values that print long and short.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertEmbeddingAnswerFits, MAX_EMBEDDING_VALUES } from '../../../src/domain/embeddings/embedding-request.ts';
import { isAppError } from '../../../src/domain/errors.ts';
import { encodeFloatEmbeddingsBody } from '../../../src/protocols/openai-embeddings/openai-embeddings.float-body.ts';
import { renderOpenAiEmbeddings } from '../../../src/protocols/openai-embeddings/openai-embeddings.response.ts';

test('an answer of more than 2,048 × 1,536 values is refused on input, naming the most inputs at that size', () => {
  assert.equal(MAX_EMBEDDING_VALUES, 3_145_728);
  assertEmbeddingAnswerFits(Array.from({ length: 2048 }, () => 'a'), 1536);
  assertEmbeddingAnswerFits(Array.from({ length: 1024 }, () => 'a'), 3072);
  assertEmbeddingAnswerFits('a', 3072);
  assert.throws(
    () => assertEmbeddingAnswerFits(Array.from({ length: 1025 }, () => 'a'), 3072),
    (error: unknown) => isAppError(error) && error.code === 'invalid_input' && error.param === 'input' && /at most 3145728 \(1024 inputs at 3072 dimensions\)/.test(error.message),
  );
  assert.throws(() => assertEmbeddingAnswerFits(Array.from({ length: 2048 }, () => [1]), 1537), (error: unknown) => isAppError(error) && error.param === 'input');
});

test('the pool\'s float body is byte for byte the piecewise rendering', () => {
  const dimensions = 7;
  const extremes = [0, -0, 1, -1, 1.1754943508222875e-38, -3.4028234663852886e38, 1e-7, -0.0000012345678, 0.1, 1 / 3];
  const vectors = Array.from({ length: 5 }, (_, v) => Float32Array.from({ length: dimensions }, (_, d) => extremes[(v * dimensions + d) % extremes.length] as number));
  const values = new Float32Array(vectors.length * dimensions);
  for (const [i, vector] of vectors.entries()) values.set(vector, i * dimensions);
  const expected = [...renderOpenAiEmbeddings({ model: 'modèle "x"', vectors, promptTokens: 12, encoding: 'float' })].join('');
  const bytes = encodeFloatEmbeddingsBody({ values, dimensions, model: 'modèle "x"', promptTokens: 12 });
  assert.equal(Buffer.from(bytes).toString('utf8'), expected);
  const parsed = JSON.parse(expected) as { data: Array<{ embedding: number[] }> };
  assert.equal(Math.fround(parsed.data[1]?.embedding[3] as number), vectors[1]?.[3]);
  assert.throws(() => encodeFloatEmbeddingsBody({ values, dimensions: 6, model: 'm', promptTokens: 0 }), RangeError);
});
