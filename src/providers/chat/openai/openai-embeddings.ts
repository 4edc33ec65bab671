/**
 * The `openai` style's embeddings: `POST {baseUrl}/embeddings` on any OpenAI-compatible server
 * (OpenAI, DeepInfra, vLLM, TEI, Ollama). The vectors are asked for as base64 (little-endian float32,
 * what the openai SDK itself asks for): a large answer then parses as a few long strings instead of
 * millions of numbers on the event loop. A server that only answers floats is read too; one that
 * refuses base64 takes `options.embeddingsEncoding: "float"`. `dimensions` is sent only when the
 * client gave it (older models and many compatible servers refuse it).
 */
import type { UpstreamHttpClient } from '../../../adapters/outbound/upstream-http-client.ts';
import type { ProviderConfig } from '../../../config/config.types.ts';
import { embeddingItems } from '../../../domain/embeddings/embedding-request.ts';
import { isObject } from '../../../domain/chat/json-input.ts';
import { approximateTextTokens } from '../../../domain/chat/token-count.estimator.ts';
import type { EmbeddingProvider, EmbeddingResult, EmbeddingTarget, Embeddings } from '../embedding-provider.ts';
import { readStringRecord } from '../provider-options.ts';
import { postForWholeAnswer, UpstreamAttempt, upstreamEndpoint } from '../upstream-call.ts';

const DEFAULT_BASE_URL = 'https://api.openai.com/v1';
/** 2,048 vectors of 3,072 float32 values as base64 is 34 MB; room for that and the JSON around it. */
const MAX_ANSWER_BYTES = 48 * 1024 * 1024;

export function createOpenAiEmbeddingProvider(config: ProviderConfig, http: UpstreamHttpClient): EmbeddingProvider {
  const baseUrl = (config.baseUrl ?? DEFAULT_BASE_URL).replace(/\/+$/, '');
  const headers = readStringRecord(config.options.headers);
  if (config.apiKey) headers.authorization = `Bearer ${config.apiKey}`;
  const encoding = config.options.embeddingsEncoding === 'float' ? 'float' : 'base64';
  const endpoint = upstreamEndpoint(http, `${baseUrl}/embeddings`, headers);
  return {
    async embed(request, target, signal): Promise<EmbeddingResult> {
      const body = JSON.stringify({
        model: target.upstreamModel,
        input: request.input,
        encoding_format: encoding,
        ...(request.dimensions === undefined ? {} : { dimensions: request.dimensions }),
        ...(request.user === undefined ? {} : { user: request.user }),
      });
      const attempt = new UpstreamAttempt(signal, config.timeoutMs);
      try {
        const answer = await postForWholeAnswer(http.dispatcher, endpoint, body, attempt, MAX_ANSWER_BYTES);
        if (!answer.ok) return answer;
        const items = embeddingItems(request.input);
        const embeddings = readEmbeddings(answer.text, items.length, target);
        if (typeof embeddings === 'string') return { ok: false, error: { status: 502, retryable: true, message: `The upstream's embeddings answer ${embeddings}.` } };
        if (embeddings.promptTokens < 0) {
          // No usage reported (some compatible servers omit it): the approximate count, flagged.
          embeddings.promptTokens = items.reduce<number>((sum, item) => sum + (typeof item === 'string' ? approximateTextTokens(item) : item.length), 0);
          embeddings.estimated = true;
        }
        return { ok: true, embeddings };
      } finally {
        attempt.dispose();
      }
    },
  };
}

/** The vectors and usage of a `CreateEmbeddingResponse`, or what is wrong with it. */
function readEmbeddings(text: string, count: number, target: EmbeddingTarget): Embeddings | string {
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
    if (vector.length !== target.dimensions) return `has a vector of ${vector.length} dimensions where ${target.dimensions} were expected`;
    vectors[item.index] = vector;
  }
  for (let i = 0; i < count; i++) if (!vectors[i]) return `has no vector for input ${i}`;
  const usage = isObject(parsed.usage) ? parsed.usage.prompt_tokens : undefined;
  // -1: not reported; the caller estimates.
  return { vectors, promptTokens: typeof usage === 'number' && Number.isInteger(usage) && usage >= 0 ? usage : -1 };
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
