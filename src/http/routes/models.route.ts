import type { FastifyInstance } from 'fastify';
import type { EmbeddingModelDefinition } from '../../domain/catalog/models/embedding-models.ts';
import { microToUsd } from '../../domain/money.ts';
import { groupPriceMicro } from '../../domain/pricing/customer-groups.ts';
import { groupChatModel } from '../../domain/pricing/group-listing.ts';
import type { AppServices } from '../app-services.ts';
import { authOf, requireApiKey } from '../auth.ts';
import { errorResponse } from '../schemas.ts';

/** An embedding model in the same list: its input price, vector sizes and input limit. */
function embeddingEntry(created: number, ppmOf: (modelId: string) => number) {
  return (m: Readonly<EmbeddingModelDefinition>) => ({
    id: m.id,
    object: 'model',
    created,
    owned_by: m.vendor,
    name: m.name,
    type: 'embedding',
    capabilities: ['embeddings'],
    dimensions: m.defaultDimensions,
    ...(m.dimensions ? { dimensions_range: { min: m.dimensions.min, max: m.dimensions.max } } : {}),
    max_input_tokens: m.maxInputTokens,
    pricing: { unit: 'USD per 1M tokens', input: microToUsd(groupPriceMicro(m.inputMicroPerMillion, ppmOf(m.id))) },
  });
}

/**
 * The chat models, then the embedding models (POST /api/v1/embeddings), in the OpenAI list shape
 * (so `client.models.list()` works), each with its token prices in USD per 1M tokens (cache writes by lifetime, priority processing where offered), the
 * per-search price of server-side web search where offered, and the wire protocols it speaks.
 */
export function registerModelsRoute(app: FastifyInstance, services: AppServices): void {
  const started = Math.floor(Date.now() / 1000);
  app.get('/api/v1/models', {
    onRequest: requireApiKey(services.authenticator),
    config: {
      errorFormat: 'openai',
      docs: {
        summary: 'Available chat and embedding models with token pricing (USD per 1M tokens)',
        tags: ['Text'],
        auth: 'apiKey',
        responses: { 200: { description: '`{object: "list", data: [model]}`' }, 401: errorResponse('Missing or invalid API key') },
      },
    },
    handler: async (request) => {
      // The caller's customer-group prices (customer-groups.ts): the rates it is charged.
      const account = authOf(request).userId;
      const ppmOf = (modelId: string) => services.groupPrices.ppmFor(account, modelId);
      return {
      object: 'list',
      data: [
        ...services.catalog.chatModels().filter((m) => services.catalog.get(m.id) !== undefined).map((listed) => groupChatModel(listed, ppmOf(listed.id))).map((m) => ({
        id: m.id,
        object: 'model',
        created: started,
        owned_by: m.vendor,
        name: m.name,
        protocols: m.protocols,
        context_window: m.contextWindow,
        max_output_tokens: Math.min(m.maxOutputTokens, services.config.chat.maxOutputTokens),
        capabilities: m.capabilities,
        pricing: {
          unit: 'USD per 1M tokens',
          input: microToUsd(m.inputMicroPerMillion),
          output: microToUsd(m.outputMicroPerMillion),
          cached_input: microToUsd(m.cachedInputMicroPerMillion),
          // Cache writes by lifetime (Anthropic cache_control ttl "5m", "1h").
          cache_write: microToUsd(m.cacheWriteMicroPerMillion),
          cache_write_1h: microToUsd(m.cacheWrite1hMicroPerMillion),
          ...(m.priority
            ? {
                priority: {
                  input: microToUsd(m.priority.inputMicroPerMillion),
                  output: microToUsd(m.priority.outputMicroPerMillion),
                  cached_input: microToUsd(m.priority.cachedInputMicroPerMillion),
                },
              }
            : {}),
          // USD per 1,000 server-side web searches.
          ...(m.webSearchMicroPerCall === undefined ? {} : { web_search_per_1k: microToUsd(m.webSearchMicroPerCall * 1000) }),
          // Above this many prompt tokens the whole request costs these prices; without prices such prompts are refused.
          ...(m.longContext === undefined
            ? {}
            : {
                long_context: {
                  above_prompt_tokens: m.longContext.aboveTokens,
                  ...(m.longContext.prices
                    ? { input: microToUsd(m.longContext.prices.inputMicroPerMillion), output: microToUsd(m.longContext.prices.outputMicroPerMillion), cached_input: microToUsd(m.longContext.prices.cachedInputMicroPerMillion) }
                    : { refused: true }),
                },
              }),
        },
      })),
        ...services.catalog.embeddingModels().map(embeddingEntry(started, ppmOf)),
      ],
      };
    },
  });
}
