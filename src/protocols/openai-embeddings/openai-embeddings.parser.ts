/**
 * Parses a POST /api/v1/embeddings body (OpenAI's `EmbeddingCreateParams`, openai@7.57.0) into the
 * gateway's request. Everything OpenAI accepts is taken: `input` as a string, strings, one token
 * array or token arrays (at most 2,048 inputs, none empty), `dimensions`, `encoding_format` float or
 * base64, `user`. A field OpenAI does not define is refused (400 naming it), as OpenAI refuses it.
 */
import { type EmbeddingInput, type EmbeddingRequest, MAX_EMBEDDING_INPUTS } from '../../domain/embeddings/embedding-request.ts';
import { invalidInput } from '../../domain/errors.ts';
import { expectObject, optionalNumber, optionalString, requiredString } from '../../domain/chat/json-input.ts';

const FIELDS = new Set(['model', 'input', 'dimensions', 'encoding_format', 'user']);
/** Token ids are non-negative integers; no tokenizer has more than a few million. */
const MAX_TOKEN_ID = 2 ** 31 - 1;

export function parseOpenAiEmbeddingsRequest(body: unknown): EmbeddingRequest {
  const b = expectObject(body, 'body');
  for (const key of Object.keys(b)) {
    if (!FIELDS.has(key)) throw invalidInput(`Unrecognized request argument supplied: ${key}`, key);
  }
  const model = requiredString(b, 'model', 'model');
  if (model === '') throw invalidInput('model must not be empty.', 'model');
  const request: EmbeddingRequest = { model, input: parseInput(b.input), encodingFormat: 'float' };
  const dimensions = optionalNumber(b, 'dimensions', 'dimensions', { min: 1, integer: true });
  if (dimensions !== undefined) request.dimensions = dimensions;
  const format = optionalString(b, 'encoding_format', 'encoding_format');
  if (format !== undefined) {
    if (format !== 'float' && format !== 'base64') throw invalidInput(`encoding_format must be 'float' or 'base64', got ${JSON.stringify(format)}.`, 'encoding_format');
    request.encodingFormat = format;
  }
  const user = optionalString(b, 'user', 'user');
  if (user !== undefined) request.user = user;
  return request;
}

function parseInput(value: unknown): EmbeddingInput {
  if (value === undefined || value === null) throw invalidInput('input is required.', 'input');
  if (typeof value === 'string') {
    if (value === '') throw invalidInput('input must not be an empty string.', 'input');
    return value;
  }
  if (!Array.isArray(value)) throw invalidInput('input must be a string, an array of strings, an array of token ids or an array of token arrays.', 'input');
  if (value.length === 0) throw invalidInput('input must not be empty.', 'input');
  const first: unknown = value[0];
  if (typeof first === 'number') {
    assertTokens(value, 'input');
    return value as number[];
  }
  if (value.length > MAX_EMBEDDING_INPUTS) throw invalidInput(`input has ${value.length} items; at most ${MAX_EMBEDDING_INPUTS} are allowed.`, 'input');
  if (typeof first === 'string') {
    for (const [i, item] of value.entries()) {
      if (typeof item !== 'string') throw invalidInput(`input[${i}] must be a string like the other items.`, `input[${i}]`);
      if (item === '') throw invalidInput(`input[${i}] must not be an empty string.`, `input[${i}]`);
    }
    return value as string[];
  }
  for (const [i, item] of value.entries()) {
    if (!Array.isArray(item)) throw invalidInput(`input[${i}] must be an array of token ids like the other items.`, `input[${i}]`);
    assertTokens(item, `input[${i}]`);
  }
  return value as number[][];
}

function assertTokens(tokens: unknown[], field: string): void {
  if (tokens.length === 0) throw invalidInput(`${field} must not be empty.`, field);
  for (const [i, token] of tokens.entries()) {
    if (typeof token !== 'number' || !Number.isInteger(token) || token < 0 || token > MAX_TOKEN_ID) {
      throw invalidInput(`${field}[${i}] must be a token id (a non-negative integer).`, `${field}[${i}]`);
    }
  }
}
