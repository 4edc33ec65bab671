/**
 * The `openai` style's embeddings: `POST {baseUrl}/embeddings` on any OpenAI-compatible server
 * (OpenAI, DeepInfra, vLLM, TEI, Ollama). The vectors are asked for as base64 (little-endian float32,
 * what the openai SDK itself asks for): a large answer then parses as a few long strings instead of
 * millions of numbers on the event loop. A server that only answers floats is read too; one that
 * refuses base64 takes `options.embeddingsEncoding: "float"`. `dimensions` is sent only when the
 * client gave it (older models and many compatible servers refuse it). The answer may be as large as
 * what was asked allows (embedding-answer-size.ts); one past 1 MiB is read in the CPU pool.
 */
import type { UpstreamHttpClient } from '../../../adapters/outbound/upstream-http-client.ts';
import type { ProviderConfig } from '../../../config/config.types.ts';
import { embeddingItems } from '../../../domain/embeddings/embedding-request.ts';
import { approximateTextTokens } from '../../../domain/chat/token-count.estimator.ts';
import type { CpuPool } from '../../../ports/cpu-pool.port.ts';
import type { EmbeddingProvider, EmbeddingResult } from '../embedding-provider.ts';
import { readStringRecord } from '../provider-options.ts';
import { postForWholeBytes, UpstreamAttempt, upstreamEndpoint } from '../upstream-call.ts';
import { embeddingAnswerLimit, readEmbeddingsBytes } from './embedding-answer-size.ts';

const DEFAULT_BASE_URL = 'https://api.openai.com/v1';

/** `cpu`: where a large answer is read (none: on the event loop, for unit tests). */
export function createOpenAiEmbeddingProvider(config: ProviderConfig, http: UpstreamHttpClient, cpu?: CpuPool): EmbeddingProvider {
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
        const items = embeddingItems(request.input);
        const answer = await postForWholeBytes(http.dispatcher, endpoint, body, attempt, embeddingAnswerLimit(items.length, target.dimensions));
        if (!answer.ok) return answer;
        const embeddings = await readEmbeddingsBytes(answer, items.length, target.dimensions, cpu);
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
