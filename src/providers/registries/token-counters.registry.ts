/** Provider `type` → token counter (the port is chat/embedding-provider.ts); a type absent here has no count endpoint. */
import type { UpstreamHttpClient } from '../../adapters/outbound/upstream-http-client.ts';
import type { ProviderConfig } from '../../config/config.types.ts';
import type { CpuPool } from '../../ports/cpu-pool.port.ts';
import { createAnthropicTokenCounter } from '../chat/anthropic/anthropic-count-tokens.ts';
import type { TokenCounter } from '../chat/embedding-provider.ts';
import { createLocalTokenCounter } from '../chat/local/local-embeddings.ts';
import { ProviderRegistry } from '../provider-registry.ts';
import type { UpstreamExtraDeps } from './upstream-extra-deps.ts';

const TOKEN_COUNTERS = new ProviderRegistry<ProviderConfig, UpstreamExtraDeps, TokenCounter>({
  anthropic: (config, deps) => createAnthropicTokenCounter(config, deps.http()),
  local: (_config, deps) => createLocalTokenCounter(deps.cpu),
});

/** The token counting of a configured provider; undefined when its upstream has no count endpoint. The local count of a large prompt runs in `cpu`. */
export function createTokenCounter(config: ProviderConfig, http: () => UpstreamHttpClient, cpu?: CpuPool): TokenCounter | undefined {
  return TOKEN_COUNTERS.createIfKnown(config.type, config, { http, cpu });
}
