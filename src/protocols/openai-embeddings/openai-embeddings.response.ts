/**
 * Renders an embeddings answer as OpenAI's `CreateEmbeddingResponse` (object, data, model, usage),
 * in pieces: one piece per 64 vectors, so that a large answer (2,048 vectors of 3,072 floats is over
 * 100 MB of JSON) is written as a stream, with the event loop free between pieces. `float` prints
 * each value with the 9 significant digits that give its float32 back exactly; `base64` is the
 * vector's little-endian float32 bytes, as OpenAI sends them.
 */
import type { EmbeddingEncoding } from '../../domain/embeddings/embedding-request.ts';

const VECTORS_PER_PIECE = 64;

export interface EmbeddingsAnswer {
  model: string;
  vectors: readonly Float32Array[];
  promptTokens: number;
  encoding: EmbeddingEncoding;
}

export function* renderOpenAiEmbeddings(answer: EmbeddingsAnswer): Generator<string> {
  let piece = '{"object":"list","data":[';
  for (const [index, vector] of answer.vectors.entries()) {
    if (index > 0) piece += ',';
    piece += `{"object":"embedding","index":${index},"embedding":${answer.encoding === 'base64' ? `"${base64(vector)}"` : floats(vector)}}`;
    if ((index + 1) % VECTORS_PER_PIECE === 0) {
      yield piece;
      piece = '';
    }
  }
  const tokens = answer.promptTokens;
  yield `${piece}],"model":${JSON.stringify(answer.model)},"usage":{"prompt_tokens":${tokens},"total_tokens":${tokens}}}`;
}

function base64(vector: Float32Array): string {
  return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).toString('base64');
}

function floats(vector: Float32Array): string {
  const parts = new Array<string>(vector.length);
  for (let i = 0; i < vector.length; i++) parts[i] = String(Number((vector[i] as number).toPrecision(9)));
  return `[${parts.join(',')}]`;
}
