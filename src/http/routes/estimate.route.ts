import type { FastifyInstance } from 'fastify';
import { LARGE_BODY_LIMIT } from '../body-limits.ts';
import type { Catalog } from '../../domain/catalog/catalog.ts';
import type { AppServices } from '../app-services.ts';
import { authOf, requireApiKey } from '../auth.ts';
import { errorResponse } from '../schemas.ts';

export const generationRequestSchema = {
  type: 'object',
  required: ['model', 'input'],
  additionalProperties: false,
  properties: {
    model: { type: 'string', description: 'A media model id from GET /api/v1/catalog' },
    input: { type: 'object', description: "The model's input family; see each model's params in the catalog" },
    webhook: { type: 'string', format: 'uri', description: 'Called with the task status when the task ends' },
  },
};

/**
 * The create/estimate body for the docs: one alternative per media model, its `input` schema taken
 * from the catalog's family declaration (the same declaration that validates it).
 */
export function generationBodySchema(catalog: Catalog): Record<string, unknown> {
  return {
    oneOf: catalog.mediaModels().map((m) => ({
      title: m.id,
      type: 'object',
      required: ['model', 'input'],
      additionalProperties: false,
      properties: {
        model: { const: m.id },
        input: catalog.inputSchema(m.id),
        webhook: generationRequestSchema.properties.webhook,
      },
    })),
  };
}

export function registerEstimateRoute(app: FastifyInstance, services: AppServices): void {
  app.post('/api/v1/generation/estimate', {
    bodyLimit: LARGE_BODY_LIMIT,
    onRequest: requireApiKey(services.authenticator),
    config: {
      docs: {
        summary: 'Exactly what create would debit for this body, in micro-USD',
        description: 'Validates the input as create does, measures user media whose length is billed or bounded, and prices it.',
        tags: ['Generation'],
        auth: 'apiKey',
        requestBody: generationBodySchema(services.catalog),
        responses: {
          200: { description: '`{cost}` in integer micro-USD', schema: { type: 'object', required: ['cost'], properties: { cost: { type: 'integer' } } } },
          400: errorResponse('Invalid model or input (code invalid_input)'),
          401: errorResponse('Missing or invalid API key'),
        },
      },
    },
    handler: async (request) => {
      const priced = await services.estimates.price(request.body, authOf(request).userId);
      return { cost: priced.quote.costMicro };
    },
  });
}
