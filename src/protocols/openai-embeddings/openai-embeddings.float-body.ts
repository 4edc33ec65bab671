/**
 * The whole `CreateEmbeddingResponse` of a float answer as UTF-8 bytes, in one pass over the vectors
 * laid end to end: what the CPU pool runs for a large answer (up to 3,145,728 values, about 67 MB of
 * JSON, half a second of work that must not run on the event loop). The bytes are exactly those of
 * renderOpenAiEmbeddings with `float` (each float32 printed as JSON.stringify prints its double).
 */

export interface FloatEmbeddingsBody {
  /** The vectors one after the other, `dimensions` values each. */
  values: Float32Array;
  dimensions: number;
  model: string;
  promptTokens: number;
}

/**
 * The longest JSON text of one value and its comma: a float32 as a double prints at most 17
 * significant digits, a sign, a point and either `e-38` or up to six leading zeros (`-0.000001…`).
 */
const MAX_VALUE_BYTES = 26;
const VECTOR_OVERHEAD_BYTES = 64;

export function encodeFloatEmbeddingsBody(body: FloatEmbeddingsBody): Uint8Array {
  const { values, dimensions } = body;
  if (!Number.isInteger(dimensions) || dimensions < 1 || values.length % dimensions !== 0) throw new RangeError(`${values.length} values are not vectors of ${dimensions}`);
  const count = values.length / dimensions;
  const head = '{"object":"list","data":[';
  const tail = `],"model":${JSON.stringify(body.model)},"usage":{"prompt_tokens":${body.promptTokens},"total_tokens":${body.promptTokens}}}`;
  const out = Buffer.from(new ArrayBuffer(head.length + Buffer.byteLength(tail) + count * VECTOR_OVERHEAD_BYTES + values.length * MAX_VALUE_BYTES));
  let at = out.write(head, 0, 'latin1');
  for (let index = 0; index < count; index++) {
    const vector = values.subarray(index * dimensions, (index + 1) * dimensions);
    // Digits, signs, points and `e` only: latin1 writes them as they are, faster than utf8.
    at += out.write(`${index > 0 ? ',' : ''}{"object":"embedding","index":${index},"embedding":${JSON.stringify(Array.from(vector))}}`, at, 'latin1');
  }
  at += out.write(tail, at, 'utf8');
  return new Uint8Array(out.buffer, 0, at);
}
