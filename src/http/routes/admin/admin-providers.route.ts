import type { FastifyInstance } from 'fastify';
import type { AppServices } from '../../app-services.ts';
import { requireAdmin } from '../../auth.ts';
import { callCounts, keySubjectsOf, liveProviderFields, presentLiveProvider } from './upstream-presenters.ts';

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
    ...liveProviderFields,
  },
};

export function registerAdminProviderRoutes(app: FastifyInstance, services: AppServices): void {
  app.get('/admin/v1/providers', {
    onRequest: requireAdmin(services),
    config: {
      docs: {
        summary: 'Providers served now (the config file and live changes), their keys as hints with their state, and their health (last 15 minutes)',
        tags: ['Admin'],
        auth: 'admin',
        responses: {
          200: { description: 'Every configured provider', schema: { type: 'object', required: ['data'], properties: { data: { type: 'array', items: providerSchema } } } },
        },
      },
    },
    handler: async () => {
      const served = services.upstreams.providers();
      const routes = services.upstreams.routes();
      const modelsOf = (name: string): string[] => routes.filter((r) => r.entries.some((t) => t.provider === name)).map((r) => r.modelId);
      const health = await services.providerHealth.snapshots(served.map((p) => p.name));
      const now = Date.now();
      const calls = await callCounts(services, keySubjectsOf(served), now);
      return {
        data: served.map((provider) => ({
          ...presentLiveProvider(services, provider, now, calls),
          // Models routed here; `local` also serves every model without a route of its own.
          models: provider.name === 'local' ? ['*', ...modelsOf(provider.name)] : modelsOf(provider.name),
          health: health.get(provider.name),
        })),
      };
    },
  });
}
