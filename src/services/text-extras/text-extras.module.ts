/**
 * Builds the text extras, the two text services beside chat (issue 20) that this folder holds:
 * embeddings and count_tokens. They share the chat service's router (the model's routes) and
 * billing, and one set of upstream adapters (UpstreamExtras), which EmbeddingsService.close releases.
 */
import type { Logger } from 'pino';
import type { Metrics } from '../../adapters/metrics/metrics.ts';
import type { Catalog } from '../../domain/catalog/catalog.ts';
import type { CpuPool } from '../../ports/cpu-pool.port.ts';
import type { TokenDoor } from '../accounts/key-door.ts';
import type { ChatService } from '../chat/chat.service.ts';
import { CountTokensService } from './count-tokens.service.ts';
import type { ProviderHealth } from '../upstreams/provider-health.ts';
import { EmbeddingsService } from './embeddings.service.ts';
import { UpstreamExtras } from './upstream-extras.ts';
import type { UpstreamDirectory } from '../upstreams/upstream-directory.ts';

export interface TextExtras {
  embeddings: EmbeddingsService;
  countTokens: CountTokensService;
}

export function buildTextExtras(deps: { upstreams: UpstreamDirectory; catalog: Catalog; chat: ChatService; health: ProviderHealth; metrics: Metrics; logger: Logger; cpu?: CpuPool; tokens?: TokenDoor }): TextExtras {
  const extras = new UpstreamExtras(deps.upstreams, deps.cpu);
  // A provider changed live: its adapters are built again from the new setting.
  deps.upstreams.onChange((change) => extras.forgetProviders(change.providers));
  const router = deps.chat.router;
  return {
    embeddings: new EmbeddingsService({ catalog: deps.catalog, chat: deps.chat, router, extras, health: deps.health, metrics: deps.metrics, logger: deps.logger, ...(deps.tokens ? { tokens: deps.tokens } : {}) }),
    countTokens: new CountTokensService({ catalog: deps.catalog, router, extras, metrics: deps.metrics, logger: deps.logger, tracer: deps.chat.tracer, ...(deps.cpu ? { cpu: deps.cpu } : {}) }),
  };
}
