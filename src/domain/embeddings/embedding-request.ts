/**
 * An embeddings request as the gateway carries it (the OpenAI shape, which every OpenAI-compatible
 * upstream takes as it is), its bounds, and what it may cost. The input keeps the client's form
 * (one string, strings, one token array, token arrays) so it reaches an upstream unchanged.
 */
import type { EmbeddingModelDefinition } from '../catalog/models/embedding-models.ts';
import { invalidInput } from '../errors.ts';

export type EmbeddingInput = string | string[] | number[] | number[][];
export type EmbeddingEncoding = 'float' | 'base64';

export interface EmbeddingRequest {
  model: string;
  input: EmbeddingInput;
  /** Absent: the model's default size. */
  dimensions?: number;
  /** How the client wants the vectors; upstreams are asked for the same. */
  encodingFormat: EmbeddingEncoding;
  user?: string;
}

/** OpenAI's bounds: at most 2,048 inputs, at most 300,000 tokens in one request. */
export const MAX_EMBEDDING_INPUTS = 2048;
export const MAX_EMBEDDING_REQUEST_TOKENS = 300_000;
/**
 * The most values (inputs × dimensions) one answer carries: 2,048 inputs at text-embedding-3-small's
 * 1,536, or 1,024 at text-embedding-3-large's 3,072. OpenAI's own bounds allow 2,048 × 3,072, about
 * 134 MB of float JSON for a few hundred micro-USD of one-word inputs; half of it keeps every
 * full-size batch of the small model and the batches clients send by default (LangChain 1,000,
 * LlamaIndex 100) while halving what one cheap request makes the gateway build and hold.
 */
export const MAX_EMBEDDING_VALUES = 2048 * 1536;

/** The inputs one by one: a text, or a token array. */
export function embeddingItems(input: EmbeddingInput): Array<string | number[]> {
  if (typeof input === 'string') return [input];
  if (input.length > 0 && typeof input[0] === 'number') return [input as number[]];
  return input as Array<string | number[]>;
}

/**
 * An upper bound of the request's input tokens, for the hold: a text of n UTF-8 bytes is at most n
 * tokens (every tokenizer the upstreams use covers at least one byte per token; prompt-size.estimator.ts),
 * a token array is its length.
 */
export function embeddingTokenBound(input: EmbeddingInput): number {
  let total = 0;
  for (const item of embeddingItems(input)) total += typeof item === 'string' ? Buffer.byteLength(item, 'utf8') : item.length;
  return total;
}

/** The vector size the request asks of this model; a `dimensions` the model does not allow is a 400 naming it. */
export function embeddingDimensions(model: Readonly<EmbeddingModelDefinition>, request: EmbeddingRequest): number {
  const asked = request.dimensions;
  if (asked === undefined) return model.defaultDimensions;
  const range = model.dimensions;
  if (!range) {
    if (asked === model.defaultDimensions) return asked;
    throw invalidInput(`${model.id} does not support dimensions: its vectors have ${model.defaultDimensions} dimensions.`, 'dimensions');
  }
  if (asked < range.min || asked > range.max) throw invalidInput(`dimensions must be from ${range.min} to ${range.max} for ${model.id}, got ${asked}.`, 'dimensions');
  return asked;
}

/**
 * Refuses a token array longer than the model takes (a text's tokens are known only upstream, which
 * refuses a long one itself) and a request above OpenAI's total when its tokens are given.
 */
export function assertEmbeddingInputFits(model: Readonly<EmbeddingModelDefinition>, input: EmbeddingInput): void {
  let tokens = 0;
  for (const [i, item] of embeddingItems(input).entries()) {
    if (typeof item === 'string') continue;
    if (item.length > model.maxInputTokens) {
      const field = typeof input[0] === 'number' ? 'input' : `input[${i}]`;
      throw invalidInput(`${field} has ${item.length} tokens; ${model.id} takes at most ${model.maxInputTokens} per input.`, field);
    }
    tokens += item.length;
  }
  if (tokens > MAX_EMBEDDING_REQUEST_TOKENS) throw invalidInput(`input has ${tokens} tokens; one request takes at most ${MAX_EMBEDDING_REQUEST_TOKENS}.`, 'input');
}

/** Refuses an answer of more than MAX_EMBEDDING_VALUES values, before anything is held or sent. */
export function assertEmbeddingAnswerFits(input: EmbeddingInput, dimensions: number): void {
  const count = embeddingItems(input).length;
  const values = count * dimensions;
  if (values <= MAX_EMBEDDING_VALUES) return;
  const most = Math.floor(MAX_EMBEDDING_VALUES / dimensions);
  throw invalidInput(
    `input has ${count} items of ${dimensions} dimensions, ${values} values in all; one request answers at most ${MAX_EMBEDDING_VALUES} (${most} inputs at ${dimensions} dimensions): send fewer inputs per request, or fewer dimensions.`,
    'input',
  );
}

/**
 * What `tokens` input tokens cost at `microPerMillion`, in micro-USD: tokens × price / 1,000,000,
 * computed exactly and rounded up once, as chat charges are (chat-billing.ts).
 */
export function embeddingCostMicro(microPerMillion: number, tokens: number): number {
  const total = BigInt(Math.max(0, tokens)) * BigInt(microPerMillion);
  return Number((total + 999_999n) / 1_000_000n);
}
