import type { FastifyInstance } from 'fastify';
import type { AppServices } from '../../services/app-services.ts';

/** Liveness, readiness and Prometheus metrics: no authentication, not in the public API docs. */
export function registerHealthRoutes(app: FastifyInstance, services: AppServices): void {
  app.get('/healthz', async () => ({ status: 'ok' }));

  app.get('/readyz', async (_request, reply) => {
    const checks: Record<string, string> = {};
    let ready = true;
    for (const { name, check } of services.readinessChecks) {
      try {
        await check();
        checks[name] = 'ok';
      } catch (error) {
        ready = false;
        checks[name] = (error as Error).message || 'failed';
      }
    }
    return reply.code(ready ? 200 : 503).send({ status: ready ? 'ready' : 'not_ready', checks });
  });

  app.get('/metrics', async (_request, reply) => {
    return reply.type(services.metrics.contentType).send(await services.metrics.text());
  });
}
