/**
 * Reads an upstream's `CreateEmbeddingResponse` (OpenAI's shape, vectors as base64 float32 or as
 * numbers): one vector per input, every index once, each of the size asked, finite. On the event
 * loop for a small answer; a large one (up to about 85 MB of floats at the bound on values) is read
 * in the CPU pool with `readEmbeddingsAnswerPacked`, which hands the vectors back as one buffer.
 */
import { isObject } from '../../domain/chat/json-input.ts';

export interface ReadEmbeddings {
  vectors: Float32Array[];
  /** -1: the upstream reported none (the caller estimates). */
  promptTokens: number;
}

/** The vectors and usage of the answer, or what is wrong with it (a phrase after "The upstream's embeddings answer"). */
export function readEmbeddingsAnswer(text: string, count: number, dimensions: number): ReadEmbeddings | string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return 'is not JSON';
  }
  if (!isObject(parsed) || !Array.isArray(parsed.data)) return 'has no data list';
  if (parsed.data.length !== count) return `has ${parsed.data.length} vectors for ${count} inputs`;
  const vectors: Float32Array[] = new Array(count);
  for (const item of parsed.data) {
    if (!isObject(item) || typeof item.index !== 'number' || !Number.isInteger(item.index) || item.index < 0 || item.index >= count) return 'has an item without a valid index';
    const vector = decodeVector(item.embedding);
    if (!vector) return `has an embedding that is neither base64 float32 nor a list of numbers (index ${item.index})`;
    if (vector.length !== dimensions) return `has a vector of ${vector.length} dimensions where ${dimensions} were expected`;
    vectors[item.index] = vector;
  }
  for (let i = 0; i < count; i++) if (!vectors[i]) return `has no vector for input ${i}`;
  const usage = isObject(parsed.usage) ? parsed.usage.prompt_tokens : undefined;
  return { vectors, promptTokens: typeof usage === 'number' && Number.isInteger(usage) && usage >= 0 ? usage : -1 };
}

export type PackedEmbeddings = { ok: true; values: Float32Array; promptTokens: number } | { ok: false; problem: string };

/** The same reading from the answer's bytes (the CPU pool's task), the vectors laid end to end in one buffer. */
export function readEmbeddingsAnswerPacked(parts: Uint8Array[], count: number, dimensions: number): PackedEmbeddings {
  const read = readEmbeddingsAnswer(new TextDecoder().decode(Buffer.concat(parts)), count, dimensions);
  if (typeof read === 'string') return { ok: false, problem: read };
  const values = new Float32Array(count * dimensions);
  for (const [i, vector] of read.vectors.entries()) values.set(vector, i * dimensions);
  return { ok: true, values, promptTokens: read.promptTokens };
}

function decodeVector(value: unknown): Float32Array | undefined {
  if (typeof value === 'string') {
    const bytes = Buffer.from(value, 'base64');
    if (bytes.length % 4 !== 0) return undefined;
    // A copy, aligned for Float32Array; float32 little-endian, the byte order of every platform Node runs on.
    const copy = new Uint8Array(bytes);
    const vector = new Float32Array(copy.buffer, 0, copy.length / 4);
    // NaN and infinities have no JSON form: such a vector is a broken answer.
    for (let i = 0; i < vector.length; i++) if (!Number.isFinite(vector[i])) return undefined;
    return vector;
  }
  if (!Array.isArray(value)) return undefined;
  const vector = new Float32Array(value.length);
  for (let i = 0; i < value.length; i++) {
    const x: unknown = value[i];
    if (typeof x !== 'number') return undefined;
    vector[i] = x;
  }
  return vector;
}
