/**
 * The two operations of text upstreams beside chat (issue 20): embeddings, and counting a prompt's
 * tokens. Like ChatProvider, failures are values (`retryable` drives failover), never throws. A
 * provider type offers what its upstream has: `openai` embeds (OpenAI's `/embeddings`) and counts
 * nothing (the gateway estimates), `anthropic` counts (its `/v1/messages/count_tokens`), `local` does
 * both offline. The tables that pick one per provider type are registries/embeddings.registry.ts and
 * registries/token-counters.registry.ts.
 */
import type { ChatRequest } from '../../domain/chat/chat-request.types.ts';
import type { EmbeddingRequest } from '../../domain/embeddings/embedding-request.ts';
import type { ChatUpstreamError } from './chat-provider.ts';

export interface EmbeddingTarget {
  /** The upstream's name for the model (the route's `model`). */
  upstreamModel: string;
  /** The size of each vector: what the request asked for, or the model's default. */
  dimensions: number;
}

export interface Embeddings {
  /** One vector per input, in input order. */
  vectors: Float32Array[];
  /** The input tokens the upstream reported (what is billed). */
  promptTokens: number;
  /** True when the upstream reported none and the gateway estimated them. */
  estimated?: boolean;
}

export type EmbeddingResult = { ok: true; embeddings: Embeddings } | { ok: false; error: ChatUpstreamError };

export interface EmbeddingProvider {
  embed(request: EmbeddingRequest, target: EmbeddingTarget, signal: AbortSignal): Promise<EmbeddingResult>;
}

export type TokenCountResult = { ok: true; inputTokens: number } | { ok: false; error: ChatUpstreamError };

export interface TokenCounter {
  /** The prompt's input tokens as the upstream's model counts them (nothing is generated or billed). */
  countTokens(request: ChatRequest, target: { upstreamModel: string }, signal: AbortSignal): Promise<TokenCountResult>;
}
