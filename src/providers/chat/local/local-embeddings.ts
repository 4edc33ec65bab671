/**
 * The `local` style's embeddings and token counts, offline and deterministic (decision 13): the same
 * input always gives the same vector, on every machine. A vector is feature hashing of the input's
 * words (the local tokenizer's tokens, domain/chat/local-tokens.ts): each token adds ±1 at 8 positions chosen by
 * a hash of the token, over a small dense background drawn from a hash of the whole input (so no
 * component is left at zero), normalised to length 1. Inputs that share words point in similar
 * directions, so a search over local vectors behaves like one (crudely), and the cosine of an input
 * with itself is 1. Any size up to the model's maximum; the work is the size plus 8 per token, so
 * 2,048 inputs of 3,072 dimensions take about a second in all, with a turn of the loop every 65,536 values.
 * Usage counts the local tokens (token arrays: their length), which is what is billed.
 */
import type { ProviderConfig } from '../../../config/config.types.ts';
import { embeddingItems } from '../../../domain/embeddings/embedding-request.ts';
import type { EmbeddingProvider, EmbeddingResult, TokenCounter } from '../embedding-provider.ts';
import { countLocalTokens } from '../../../domain/chat/local-tokens.ts';
import type { CpuPool } from '../../../ports/cpu-pool.port.ts';
import { countPromptTokens } from '../prompt-token-count.ts';

const TOKEN = /[\p{L}\p{N}_]+|[^\s\p{L}\p{N}_]/gu;
const CANCELLED = { status: 499, retryable: false, message: 'The client cancelled the request.' } as const;

export function createLocalEmbeddingProvider(_config: ProviderConfig): EmbeddingProvider {
  return {
    async embed(request, target, signal): Promise<EmbeddingResult> {
      const items = embeddingItems(request.input);
      const vectors: Float32Array[] = [];
      let promptTokens = 0;
      let sinceTurn = 0;
      for (const item of items) {
        // A turn of the loop every 65,536 values (about 10 ms): 2,048 long inputs must not hold it in one piece.
        if (sinceTurn >= 65_536) {
          await new Promise((resolve) => setImmediate(resolve));
          sinceTurn = 0;
        }
        sinceTurn += target.dimensions;
        if (signal.aborted) return { ok: false, error: { ...CANCELLED } };
        const tokens = typeof item === 'string' ? [...item.toLowerCase().matchAll(TOKEN)].map((m) => m[0]) : item.map(String);
        promptTokens += typeof item === 'string' ? countLocalTokens(item) : item.length;
        vectors.push(localVector(tokens, target.dimensions));
      }
      return { ok: true, embeddings: { vectors, promptTokens } };
    },
  };
}

/** The local model counts exactly: its tokenizer is the one it bills with (a large prompt in the CPU pool). */
export function createLocalTokenCounter(cpu: CpuPool | undefined): TokenCounter {
  return {
    countTokens: (request) => countPromptTokens(request, 'local', cpu),
  };
}

const POSITIONS_PER_TOKEN = 8;
/** The dense background's weight beside one token's ±1 marks. */
const BACKGROUND = 0.2;

/** Feature hashing of the tokens over the input's background, normalised. */
export function localVector(tokens: string[], dimensions: number): Float32Array {
  const sum = new Float64Array(dimensions);
  let state = fnv1a(tokens.join('\u0000')) || 1;
  for (let d = 0; d < dimensions; d++) {
    state = xorshift(state);
    sum[d] = BACKGROUND * (state / 0x8000_0000 - 1);
  }
  for (const token of tokens) {
    let h = fnv1a(token) || 1;
    for (let k = 0; k < POSITIONS_PER_TOKEN; k++) {
      h = xorshift(h);
      const at = h % dimensions;
      sum[at] = (sum[at] as number) + ((h >>> 31) === 1 ? 1 : -1);
    }
  }
  let norm = 0;
  for (let d = 0; d < dimensions; d++) norm += (sum[d] as number) ** 2;
  norm = Math.sqrt(norm) || 1;
  const vector = new Float32Array(dimensions);
  for (let d = 0; d < dimensions; d++) vector[d] = (sum[d] as number) / norm;
  return vector;
}

function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

function xorshift(x: number): number {
  let s = x;
  s ^= s << 13;
  s ^= s >>> 17;
  s ^= s << 5;
  return s >>> 0;
}
