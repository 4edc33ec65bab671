/**
 * Renders an embeddings answer as OpenAI's `CreateEmbeddingResponse` (object, data, model, usage),
 * in pieces of about 32,768 values, written as a stream with the event loop free between pieces (a
 * piece of floats takes a few milliseconds). A float answer of more than one piece is written in the
 * CPU pool instead (openai-embeddings.float-body.ts, the same bytes; src/http/embeddings-answer.ts):
 * this is base64 answers, small ones, and the fallback when the pool cannot take the task. `float` prints each float32 as the double it is (JSON.stringify's
 * shortest form of that double, which parses back to the same float32; printing the shortest float32
 * form instead measured five times slower); `base64` is the vector's little-endian float32 bytes, as
 * OpenAI sends them.
 */
import type { EmbeddingEncoding } from '../../domain/embeddings/embedding-request.ts';

/** About 700 KB of float JSON, a few milliseconds of printing. */
export const VALUES_PER_PIECE = 32_768;

export interface EmbeddingsAnswer {
  model: string;
  vectors: readonly Float32Array[];
  promptTokens: number;
  encoding: EmbeddingEncoding;
}

export function* renderOpenAiEmbeddings(answer: EmbeddingsAnswer): Generator<string> {
  let piece = '{"object":"list","data":[';
  let values = 0;
  for (const [index, vector] of answer.vectors.entries()) {
    if (index > 0) piece += ',';
    piece += `{"object":"embedding","index":${index},"embedding":${answer.encoding === 'base64' ? `"${base64(vector)}"` : JSON.stringify(Array.from(vector))}}`;
    values += vector.length;
    if (values >= VALUES_PER_PIECE) {
      yield piece;
      piece = '';
      values = 0;
    }
  }
  const tokens = answer.promptTokens;
  yield `${piece}],"model":${JSON.stringify(answer.model)},"usage":{"prompt_tokens":${tokens},"total_tokens":${tokens}}}`;
}

function base64(vector: Float32Array): string {
  return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).toString('base64');
}
