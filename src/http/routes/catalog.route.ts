import type { FastifyInstance } from 'fastify';
import { PARAM_FIELD_JSON_SCHEMA } from '../../domain/catalog/index.ts';
import { AppError } from '../../domain/errors.ts';
import type { CatalogModel } from '../../domain/catalog/index.ts';
import { groupCatalogModel } from '../../domain/pricing/group-listing.ts';
import type { AppServices } from '../app-services.ts';
import { optionalAccountId } from '../auth.ts';
import { NO_LIVE_ROUTE_TAG } from '../../services/generation/live-routes.ts';
import { errorResponse, idParam } from '../schemas.ts';

const catalogModelSchema = {
  type: 'object',
  required: ['id', 'group', 'name', 'type', 'kind', 'tags', 'capabilities', 'pricing', 'priceUnit', 'params'],
  properties: {
    id: { type: 'string' },
    group: { type: 'string' },
    name: { type: 'string' },
    description: { type: 'string' },
    type: { enum: ['TEXT', 'MUSIC', 'IMAGE', 'VIDEO'] },
    kind: { enum: ['media', 'llm'] },
    vendor: { type: 'string' },
    tags: { type: 'array', items: { type: 'string' } },
    capabilities: { type: 'array', items: { type: 'string' } },
    pricing: {
      type: 'array',
      items: {
        type: 'object',
        required: ['key', 'price', 'isDefault'],
        properties: {
          key: { type: 'string' },
          price: { type: 'string', description: 'USD for one unit of priceUnit' },
          isDefault: { type: 'boolean' },
          dimensions: { type: 'object', additionalProperties: { type: 'string' } },
        },
      },
    },
    priceFrom: { type: 'string' },
    priceUnit: { enum: ['generation', 'second', 'megatoken'] },
    params: { type: 'array', items: PARAM_FIELD_JSON_SCHEMA },
    protocols: { type: 'array', items: { enum: ['openai', 'anthropic'] } },
  },
};

/** A model none of whose routes can serve it (an upstream that was shut down) says so in its tags. */
function withLiveRouteTag(services: AppServices, model: CatalogModel): CatalogModel {
  return services.noLiveRoute?.has(model.id) ? { ...model, tags: [...model.tags, NO_LIVE_ROUTE_TAG] } : model;
}

/** A model at the price of the caller's customer group (a key or session given); the list price otherwise. */
function atGroupPrice(services: AppServices, account: string | undefined, model: CatalogModel): CatalogModel {
  return account === undefined ? model : groupCatalogModel(model, services.groupPrices.ppmFor(account, model.id));
}

/** The public model catalog (media and text); no authentication (a key or session shows its group's prices). */
export function registerCatalogRoutes(app: FastifyInstance, services: AppServices, defineComponent: (name: string, schema: Record<string, unknown>) => void): void {
  defineComponent('CatalogModel', catalogModelSchema);
  const ref = { $ref: '#/components/schemas/CatalogModel' };

  app.get('/api/v1/catalog', {
    config: {
      docs: {
        summary: 'Every model with its parameters and prices',
        description: 'Without credentials: the list prices. With a valid API key or dashboard session: the prices of that account\'s customer group (an invalid key is ignored).',
        tags: ['Catalog'],
        auth: 'none',
        responses: { 200: { description: 'Media models first, then text models', schema: { type: 'array', items: ref } } },
      },
    },
    handler: async (request) => {
      const account = await optionalAccountId(services.authenticator, request);
      return services.catalog.list().map((model) => withLiveRouteTag(services, atGroupPrice(services, account, model)));
    },
  });

  app.get('/api/v1/catalog/:id', {
    schema: { params: idParam('id', 'Model id') },
    config: {
      docs: {
        summary: 'One model',
        tags: ['Catalog'],
        auth: 'none',
        responses: { 200: { description: 'The model', schema: ref }, 404: errorResponse('Model not found') },
      },
    },
    handler: async (request) => {
      const { id } = request.params as { id: string };
      const model = services.catalog.get(id);
      if (!model) throw new AppError('model_not_found', `model ${JSON.stringify(id)} not found`);
      return withLiveRouteTag(services, atGroupPrice(services, await optionalAccountId(services.authenticator, request), model));
    },
  });
}
