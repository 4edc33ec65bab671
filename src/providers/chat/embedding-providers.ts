/** The embeddings and token-count adapters by provider type (the port is embedding-provider.ts). */
import type { UpstreamHttpClient } from '../../adapters/outbound/upstream-http-client.ts';
import type { ProviderConfig } from '../../config/config.types.ts';
import { createAnthropicTokenCounter } from './anthropic/anthropic-count-tokens.ts';
import type { EmbeddingProvider, TokenCounter } from './embedding-provider.ts';
import { createLocalEmbeddingProvider, createLocalTokenCounter } from './local/local-embeddings.ts';
import { createOpenAiEmbeddingProvider } from './openai/openai-embeddings.ts';

/** The embeddings side of a configured provider; undefined when its type has none. */
export function createEmbeddingProvider(config: ProviderConfig, http: () => UpstreamHttpClient): EmbeddingProvider | undefined {
  if (config.type === 'openai') return createOpenAiEmbeddingProvider(config, http());
  if (config.type === 'local') return createLocalEmbeddingProvider(config);
  return undefined;
}

/** The token counting of a configured provider; undefined when its upstream has no count endpoint. */
export function createTokenCounter(config: ProviderConfig, http: () => UpstreamHttpClient): TokenCounter | undefined {
  if (config.type === 'anthropic') return createAnthropicTokenCounter(config, http());
  if (config.type === 'local') return createLocalTokenCounter();
  return undefined;
}
