/**
 * A fake OpenAI `POST /v1/embeddings` upstream, following the public API: bearer auth, the body
 * checked against OpenAI's published request type (openai@7.57.0 `EmbeddingCreateParams`,
 * test/fixtures/upstreams/openai/embeddings.request.json: an unknown field, a missing one or a value
 * outside an enum gets OpenAI's 400 `invalid_request_error` naming it), the checks OpenAI makes beyond
 * the type (no empty input, at most 2,048 inputs, `dimensions` only on models that take it and within
 * their size), and a `CreateEmbeddingResponse` with vectors as floats or base64 (little-endian
 * float32) and `usage.prompt_tokens` (one token per word and per punctuation mark, or the token
 * arrays' lengths; a script's `usage.input` replaces it).
 *
 *   const fake = await OpenAiEmbeddingsFake.start();
 *   new OpenAI({ baseURL: fake.baseUrl, apiKey: fake.apiKey }).embeddings.create({ model, input });
 */
import { createHash } from 'node:crypto';
import { type FakeExchange, FakeUpstreamServer, isRecord, sendJson } from './fake-upstream.ts';
import { openAiViolation } from './openai-chat.fake.ts';
import { checkAgainstFixture } from './upstream-schema.ts';

export const OPENAI_EMBEDDINGS_REQUEST_FIXTURE = 'openai/embeddings.request.json';
export const OPENAI_EMBEDDING_RESPONSE_FIXTURE = 'openai/embedding.response.json';

/** Vector sizes of the upstream models the fake knows; `dimensions` is accepted by those with a range. */
const MODELS: Record<string, { size: number; shortenable: boolean }> = {
  'text-embedding-3-small': { size: 1536, shortenable: true },
  'text-embedding-3-large': { size: 3072, shortenable: true },
  'text-embedding-ada-002': { size: 1536, shortenable: false },
  'BAAI/bge-m3': { size: 1024, shortenable: false },
};

export class OpenAiEmbeddingsFake extends FakeUpstreamServer {
  readonly apiKey: string;

  private constructor(apiKey: string) {
    super((exchange) => this.#handle(exchange));
    this.apiKey = apiKey;
  }

  static async start(options: { apiKey?: string } = {}): Promise<OpenAiEmbeddingsFake> {
    const fake = new OpenAiEmbeddingsFake(options.apiKey ?? 'sk-fake-embeddings');
    await fake.listen();
    return fake;
  }

  get baseUrl(): string {
    return `${this.origin}/v1`;
  }

  async #handle(exchange: FakeExchange): Promise<void> {
    const { req, res, record, script } = exchange;
    if (req.method !== 'POST' || record.path !== '/v1/embeddings') {
      return sendJson(res, 404, errorBody(`Unknown request URL: ${req.method} ${record.path}.`, null, 'unknown_url'));
    }
    if (req.headers.authorization !== `Bearer ${this.apiKey}`) return sendJson(res, 401, errorBody('Incorrect API key provided.', null, 'invalid_api_key'));
    if (!isRecord(record.body)) return sendJson(res, 400, errorBody('We could not parse the JSON body of your request.', null, null));
    const violation = checkAgainstFixture(OPENAI_EMBEDDINGS_REQUEST_FIXTURE, record.body);
    if (violation) {
      const v = openAiViolation(violation);
      return sendJson(res, 400, errorBody(v.message, v.param, v.code));
    }
    if (script.error) {
      const e = script.error;
      const headers: Record<string, string> = e.retryAfter === undefined ? {} : { 'retry-after': String(e.retryAfter) };
      return sendJson(res, e.status, e.body ?? errorBody(e.message ?? `Fake error ${e.status}.`, null, null, e.status === 429 ? 'requests' : e.status >= 500 ? 'server_error' : 'invalid_request_error'), headers);
    }
    const body = record.body as { model: string; input: unknown; dimensions?: number; encoding_format?: string };
    const model = MODELS[body.model];
    if (!model) return sendJson(res, 404, errorBody(`The model \`${body.model}\` does not exist or you do not have access to it.`, null, 'model_not_found'));
    const inputs = items(body.input);
    if (typeof inputs === 'string') return sendJson(res, 400, errorBody(inputs, 'input', null));
    let size = model.size;
    if (body.dimensions !== undefined) {
      if (!model.shortenable) return sendJson(res, 400, errorBody('This model does not support specifying dimensions.', 'dimensions', null));
      if (!Number.isInteger(body.dimensions) || body.dimensions < 1 || body.dimensions > model.size) {
        return sendJson(res, 400, errorBody(`Invalid value for 'dimensions' = ${body.dimensions}. Must be between 1 and ${model.size}.`, 'dimensions', null));
      }
      size = body.dimensions;
    }
    const base64 = body.encoding_format === 'base64';
    const data = inputs.map((item, index) => {
      const vector = fakeVector(JSON.stringify(item), size);
      return { object: 'embedding', index, embedding: base64 ? Buffer.from(vector.buffer).toString('base64') : Array.from(vector) };
    });
    const tokens = script.usage?.input ?? inputs.reduce<number>((sum, item) => sum + (typeof item === 'string' ? wordTokens(item) : item.length), 0);
    sendJson(res, 200, { object: 'list', data, model: script.model ?? body.model, ...(script.omitUsage ? {} : { usage: { prompt_tokens: tokens, total_tokens: tokens } }) });
  }
}

function errorBody(message: string, param: string | null, code: string | null, type = 'invalid_request_error') {
  return { error: { message, type, param, code } };
}

/** The inputs one by one, or OpenAI's complaint. */
function items(input: unknown): Array<string | number[]> | string {
  if (typeof input === 'string') return input === '' ? "'$.input' is invalid. Please check the API reference: https://platform.openai.com/docs/api-reference." : [input];
  if (!Array.isArray(input) || input.length === 0) return "'$.input' is invalid. Please check the API reference: https://platform.openai.com/docs/api-reference.";
  if (typeof input[0] === 'number') return [input as number[]];
  if (input.length > 2048) return `'$.input' is invalid: at most 2048 inputs are allowed, got ${input.length}.`;
  for (const item of input) if (item === '' || (Array.isArray(item) && item.length === 0)) return "'$.input' is invalid. Please check the API reference: https://platform.openai.com/docs/api-reference.";
  return input as Array<string | number[]>;
}

/** The fake's tokenizer: a word or a punctuation mark is one token. */
export function wordTokens(text: string): number {
  return text.match(/[\p{L}\p{N}_]+|[^\s\p{L}\p{N}_]/gu)?.length ?? 0;
}

/** A unit vector from a hash of the input, so that answers can be checked. */
export function fakeVector(seed: string, size: number): Float32Array {
  const vector = new Float32Array(size);
  let state = createHash('sha256').update(seed).digest().readUInt32LE(0) || 1;
  let norm = 0;
  for (let i = 0; i < size; i++) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    vector[i] = state / 0x8000_0000 - 1;
    norm += (vector[i] as number) ** 2;
  }
  const scale = 1 / Math.sqrt(norm);
  for (let i = 0; i < size; i++) vector[i] = (vector[i] as number) * scale;
  return vector;
}
