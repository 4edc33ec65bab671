/** The embeddings and token-count adapters by provider type (the port is embedding-provider.ts). */
import type { UpstreamHttpClient } from '../../adapters/outbound/upstream-http-client.ts';
import type { ProviderConfig } from '../../config/config.types.ts';
import type { CpuPool } from '../../ports/cpu-pool.port.ts';
import { createAnthropicTokenCounter } from './anthropic/anthropic-count-tokens.ts';
import type { EmbeddingProvider, TokenCounter } from './embedding-provider.ts';
import { createLocalEmbeddingProvider, createLocalTokenCounter } from './local/local-embeddings.ts';
import { createOpenAiEmbeddingProvider } from './openai/openai-embeddings.ts';

/** The embeddings side of a configured provider; undefined when its type has none. A large upstream answer is read in `cpu`. */
export function createEmbeddingProvider(config: ProviderConfig, http: () => UpstreamHttpClient, cpu?: CpuPool): EmbeddingProvider | undefined {
  if (config.type === 'openai') return createOpenAiEmbeddingProvider(config, http(), cpu);
  if (config.type === 'local') return createLocalEmbeddingProvider(config);
  return undefined;
}

/** The token counting of a configured provider; undefined when its upstream has no count endpoint. The local count of a large prompt runs in `cpu`. */
export function createTokenCounter(config: ProviderConfig, http: () => UpstreamHttpClient, cpu?: CpuPool): TokenCounter | undefined {
  if (config.type === 'anthropic') return createAnthropicTokenCounter(config, http());
  if (config.type === 'local') return createLocalTokenCounter(cpu);
  return undefined;
}
