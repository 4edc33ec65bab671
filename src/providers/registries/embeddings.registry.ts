/** Provider `type` → embeddings adapter (the port is chat/embedding-provider.ts); a type absent here embeds nothing. */
import type { UpstreamHttpClient } from '../../adapters/outbound/upstream-http-client.ts';
import type { ProviderConfig } from '../../config/config.types.ts';
import type { CpuPool } from '../../ports/cpu-pool.port.ts';
import type { EmbeddingProvider } from '../chat/embedding-provider.ts';
import { createLocalEmbeddingProvider } from '../chat/local/local-embeddings.ts';
import { createOpenAiEmbeddingProvider } from '../chat/openai/openai-embeddings.ts';
import { ProviderRegistry } from '../provider-registry.ts';
import type { UpstreamExtraDeps } from './upstream-extra-deps.ts';

const EMBEDDING_PROVIDERS = new ProviderRegistry<ProviderConfig, UpstreamExtraDeps, EmbeddingProvider>({
  openai: (config, deps) => createOpenAiEmbeddingProvider(config, deps.http(), deps.cpu),
  local: (config) => createLocalEmbeddingProvider(config),
});

/** The embeddings side of a configured provider; undefined when its type has none. A large upstream answer is read in `cpu`. */
export function createEmbeddingProvider(config: ProviderConfig, http: () => UpstreamHttpClient, cpu?: CpuPool): EmbeddingProvider | undefined {
  return EMBEDDING_PROVIDERS.createIfKnown(config.type, config, { http, cpu });
}
