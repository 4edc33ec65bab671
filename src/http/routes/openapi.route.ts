import type { FastifyInstance } from 'fastify';
import type { AppServices } from '../app-services.ts';
import { API_REFERENCE_CSP, renderApiReference } from '../openapi/api-reference.page.ts';
import { setPageSecurityHeaders } from '../static/security-headers.ts';
import type { OpenApiCollector } from '../openapi/openapi-collector.ts';

const VERSION = '1.0';

/** The OpenAPI document and its human-readable page, built once after every route is registered. */
export function registerOpenApiRoutes(app: FastifyInstance, services: AppServices, openapi: OpenApiCollector): void {
  let cached: { json: string; html: string } | undefined;
  const build = () => {
    if (!cached) {
      const doc = openapi.document(services.config.publicBaseUrl, VERSION);
      cached = { json: JSON.stringify(doc), html: renderApiReference(doc) };
    }
    return cached;
  };
  app.get('/api/v1/openapi.json', async (_request, reply) => reply.type('application/json').send(build().json));
  app.get('/docs', async (_request, reply) => {
    // The same protections as the dashboard page, with a policy that fits this script-free page.
    setPageSecurityHeaders(reply, API_REFERENCE_CSP);
    return reply.type('text/html; charset=utf-8').send(build().html);
  });
}
