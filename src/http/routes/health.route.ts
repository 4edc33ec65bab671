import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { AppServices } from '../../services/app-services.ts';
import { AppError } from '../../domain/errors.ts';

/** Liveness and readiness (no authentication) and Prometheus metrics (a token, or this host only); not in the public API docs. */
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

  app.get('/metrics', async (request, reply) => {
    if (!metricsAllowed(services.config.metricsToken, request.headers.authorization, request.socket.remoteAddress)) {
      throw new AppError('unauthorized', services.config.metricsToken ? 'send Authorization: Bearer <METRICS_TOKEN>' : 'metrics are served to this host only; set METRICS_TOKEN to scrape from elsewhere');
    }
    return reply.type(services.metrics.contentType).send(await services.metrics.text());
  });
}

/**
 * /metrics reveals traffic by route and model: with METRICS_TOKEN set, only that bearer token reads
 * it; without one, only clients on this host (a local scraper or sidecar).
 */
export function metricsAllowed(token: string | undefined, authorization: string | undefined, remoteAddress: string | undefined): boolean {
  if (token !== undefined) {
    const given = Buffer.from(authorization ?? '');
    const wanted = Buffer.from(`Bearer ${token}`);
    return given.length === wanted.length && timingSafeEqual(given, wanted);
  }
  return remoteAddress === '127.0.0.1' || remoteAddress === '::1' || remoteAddress === '::ffff:127.0.0.1';
}
