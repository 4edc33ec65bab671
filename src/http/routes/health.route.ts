import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { AppServices } from '../app-services.ts';
import { AppError } from '../../domain/errors.ts';

/** A dependency that does not answer in this long counts as down: a probe must answer before the balancer gives up. */
const READINESS_TIMEOUT_MS = 2_000;

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer in ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Liveness and readiness (no authentication) and Prometheus metrics (a token, or this host only); not in the public API docs. */
export function registerHealthRoutes(app: FastifyInstance, services: AppServices): void {
  app.get('/healthz', async () => ({ status: 'ok' }));

  app.get('/readyz', async (_request, reply) => {
    const results = await Promise.all(
      services.readinessChecks.map(async ({ name, required, check }) => {
        try {
          await withTimeout(check(), READINESS_TIMEOUT_MS);
          return { name, required, problem: undefined };
        } catch (error) {
          return { name, required, problem: (error as Error).message || 'failed' };
        }
      }),
    );
    const checks: Record<string, string> = {};
    for (const { name, required, problem } of results) checks[name] = problem === undefined ? 'ok' : required ? problem : `degraded: ${problem}`;
    const ready = results.every((r) => r.problem === undefined || !r.required);
    const degraded = results.some((r) => r.problem !== undefined);
    return reply.code(ready ? 200 : 503).send({ status: ready ? (degraded ? 'degraded' : 'ready') : 'not_ready', checks });
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
