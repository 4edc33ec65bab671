import type { FastifyInstance } from 'fastify';
import type { Catalog } from '../../domain/catalog/catalog.ts';
import type { CatalogModel } from '../../domain/catalog/catalog.types.ts';
import { AppError } from '../../domain/errors.ts';
import { microToUsd, usdToMicro } from '../../domain/money.ts';
import { LIST_PPM } from '../../domain/pricing/customer-groups.ts';
import { groupCatalogModel, groupChatModel } from '../../domain/pricing/group-listing.ts';
import type { AppServices } from '../app-services.ts';
import { optionalAccountId } from '../auth.ts';
import { errorResponse, idParam } from '../schemas.ts';

const costEntrySchema = {
  type: 'object',
  required: ['model', 'name', 'type', 'kind', 'priceUnit', 'tiers'],
  properties: {
    model: { type: 'string' },
    name: { type: 'string' },
    type: { type: 'string' },
    kind: { enum: ['media', 'llm'] },
    priceUnit: { enum: ['generation', 'second', 'megatoken'] },
    priceFrom: { type: 'string' },
    tiers: {
      type: 'array',
      items: {
        type: 'object',
        required: ['key', 'price', 'priceMicroUsd', 'isDefault'],
        properties: {
          key: { type: 'string' },
          price: { type: 'string', description: 'USD per unit' },
          priceMicroUsd: { type: 'string', description: 'The same price in integer micro-USD' },
          isDefault: { type: 'boolean' },
          dimensions: { type: 'object', additionalProperties: { type: 'string' } },
        },
      },
    },
    tokens: {
      type: 'object',
      description: 'Text models: USD per 1M tokens',
      properties: {
        input: { type: 'string' },
        output: { type: 'string' },
        cachedInput: { type: 'string' },
        cacheWrite: { type: 'string', description: 'Cache writes with the default (5-minute) lifetime' },
        cacheWrite1h: { type: 'string', description: 'Cache writes with a one-hour lifetime' },
        priority: { type: 'object', description: 'Priority processing, where offered', properties: { input: { type: 'string' }, output: { type: 'string' }, cachedInput: { type: 'string' } } },
        webSearchPer1k: { type: 'string', description: 'USD per 1,000 server-side web searches, where offered' },
        longContext: {
          type: 'object',
          description: 'Above abovePromptTokens prompt tokens the whole request costs these prices; without prices such prompts are refused',
          properties: { abovePromptTokens: { type: 'integer' }, input: { type: 'string' }, output: { type: 'string' }, cachedInput: { type: 'string' }, refused: { type: 'boolean' } },
        },
      },
    },
  },
};

/** A model's prices at `ppm`, its caller's customer-group multiplier (customer-groups.ts). */
function costEntry(catalog: Catalog, listed: CatalogModel, ppm: number) {
  const model = groupCatalogModel(listed, ppm);
  const listChat = model.kind === 'llm' ? catalog.chat(model.id) : undefined;
  const chat = listChat ? groupChatModel(listChat, ppm) : undefined;
  return {
    model: model.id,
    name: model.name,
    type: model.type,
    kind: model.kind,
    priceUnit: model.priceUnit,
    ...(model.priceFrom !== undefined ? { priceFrom: model.priceFrom } : {}),
    tiers: model.pricing.map((tier) => ({ ...tier, priceMicroUsd: String(usdToMicro(tier.price)) })),
    ...(chat
      ? {
          tokens: {
            input: microToUsd(chat.inputMicroPerMillion),
            output: microToUsd(chat.outputMicroPerMillion),
            cachedInput: microToUsd(chat.cachedInputMicroPerMillion),
            cacheWrite: microToUsd(chat.cacheWriteMicroPerMillion),
            cacheWrite1h: microToUsd(chat.cacheWrite1hMicroPerMillion),
            ...(chat.priority
              ? {
                  priority: {
                    input: microToUsd(chat.priority.inputMicroPerMillion),
                    output: microToUsd(chat.priority.outputMicroPerMillion),
                    cachedInput: microToUsd(chat.priority.cachedInputMicroPerMillion),
                  },
                }
              : {}),
            ...(chat.webSearchMicroPerCall === undefined ? {} : { webSearchPer1k: microToUsd(chat.webSearchMicroPerCall * 1000) }),
            ...(chat.longContext === undefined
              ? {}
              : {
                  longContext: {
                    abovePromptTokens: chat.longContext.aboveTokens,
                    ...(chat.longContext.prices
                      ? { input: microToUsd(chat.longContext.prices.inputMicroPerMillion), output: microToUsd(chat.longContext.prices.outputMicroPerMillion), cachedInput: microToUsd(chat.longContext.prices.cachedInputMicroPerMillion) }
                      : { refused: true }),
                  },
                }),
          },
        }
      : {}),
  };
}

function ppmOf(services: AppServices, account: string | undefined, modelId: string): number {
  return account === undefined ? LIST_PPM : services.groupPrices.ppmFor(account, modelId);
}

/** Price tables (bodies are ours: see docs/decisions.md). No authentication; a key or session shows its customer group's prices. */
export function registerCostRoutes(app: FastifyInstance, services: AppServices): void {
  app.get('/api/v1/cost', {
    config: {
      docs: {
        summary: 'Prices of every model, grouped by model',
        description: 'Without credentials: the list prices. With a valid API key or dashboard session: the prices of that account\'s customer group (an invalid key is ignored).',
        tags: ['Catalog'],
        auth: 'none',
        responses: {
          200: {
            description: '`{currency, models}`; tiers in USD per priceUnit and in micro-USD',
            schema: { type: 'object', properties: { currency: { const: 'USD' }, models: { type: 'array', items: costEntrySchema } } },
          },
        },
      },
    },
    handler: async (request) => {
      const account = await optionalAccountId(services.authenticator, request);
      return { currency: 'USD', models: services.catalog.list().map((m) => costEntry(services.catalog, m, ppmOf(services, account, m.id))) };
    },
  });

  app.get('/api/v1/cost/:model', {
    schema: { params: idParam('model', 'Model id') },
    config: {
      docs: {
        summary: 'Prices of one model',
        tags: ['Catalog'],
        auth: 'none',
        responses: { 200: { description: 'The model’s price entry', schema: { type: 'object', properties: { currency: { const: 'USD' }, ...costEntrySchema.properties } } }, 404: errorResponse('Model not found') },
      },
    },
    handler: async (request) => {
      const { model } = request.params as { model: string };
      const found = services.catalog.get(model);
      if (!found) throw new AppError('model_not_found', `model ${JSON.stringify(model)} not found`);
      const account = await optionalAccountId(services.authenticator, request);
      return { currency: 'USD', ...costEntry(services.catalog, found, ppmOf(services, account, found.id)) };
    },
  });
}
