import type { FastifyInstance } from 'fastify';
import type { AppServices } from '../../app-services.ts';
import { requireAdmin } from '../../auth.ts';

const healthSchema = {
  type: 'object',
  required: ['status', 'calls', 'errors', 'errorRate', 'lastError', 'lastErrorAt', 'lastSuccessAt'],
  properties: {
    status: { type: 'string', enum: ['healthy', 'degraded', 'down', 'unknown'], description: '`unknown`: no recent calls' },
    calls: { type: 'integer' },
    errors: { type: 'integer' },
    errorRate: { type: 'number' },
    lastError: { type: ['string', 'null'] },
    lastErrorAt: { type: ['string', 'null'], format: 'date-time' },
    lastSuccessAt: { type: ['string', 'null'], format: 'date-time' },
  },
};

const providerSchema = {
  type: 'object',
  required: ['name', 'type', 'baseUrl', 'models', 'health'],
  properties: {
    name: { type: 'string' },
    type: { type: 'string' },
    baseUrl: { type: ['string', 'null'] },
    concurrency: { type: 'integer', description: 'At most this many calls at once, when limited' },
    models: { type: 'array', items: { type: 'string' }, description: 'Models routed here; `*` on `local`: every model without configured routes' },
    health: healthSchema,
  },
};

export function registerAdminProviderRoutes(app: FastifyInstance, services: AppServices): void {
  app.get('/admin/v1/providers', {
    onRequest: requireAdmin(services),
    config: {
      docs: {
        summary: 'Configured providers with their health and recent error rate (last 15 minutes)',
        tags: ['Admin'],
        auth: 'admin',
        responses: {
          200: { description: 'Every configured provider', schema: { type: 'object', required: ['data'], properties: { data: { type: 'array', items: providerSchema } } } },
        },
      },
    },
    handler: async () => {
      const { providers, routes } = services.config;
      const modelsOf = (name: string): string[] =>
        Object.entries(routes)
          .filter(([, targets]) => targets.some((t) => t.provider === name))
          .map(([model]) => model);
      const health = await services.providerHealth.snapshots(Object.keys(providers));
      return {
        data: Object.entries(providers).map(([name, provider]) => ({
          name,
          type: provider.type,
          baseUrl: provider.baseUrl ?? null,
          concurrency: provider.concurrency,
          // Models routed here by the config; `local` also serves every model without configured routes.
          models: name === 'local' ? ['*', ...modelsOf(name)] : modelsOf(name),
          health: health.get(name),
        })),
      };
    },
  });
}
