import type { FastifyInstance } from 'fastify';
import type { AppServices } from '../../../services/app-services.ts';
import { requireAdmin } from '../../auth.ts';

export function registerAdminProviderRoutes(app: FastifyInstance, services: AppServices): void {
  app.get('/admin/v1/providers', {
    onRequest: requireAdmin(services),
    config: {
      docs: {
        summary: 'Configured providers with their health and recent error rate (last 15 minutes)',
        tags: ['Admin'],
        auth: 'admin',
        responses: { 200: { description: '`{data: [{name, type, baseUrl, models, health}]}`' } },
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
