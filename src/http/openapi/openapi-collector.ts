import type { RouteOptions } from 'fastify';
import type { RouteDocs } from '../request-context.ts';

interface CollectedRoute {
  method: string;
  url: string;
  docs: RouteDocs;
  schema: { body?: unknown; params?: unknown; querystring?: unknown; headers?: unknown };
}

type JsonSchema = Record<string, unknown>;

/**
 * Builds the OpenAPI 3.1 document from the routes as they are registered: the same JSON Schemas that
 * Fastify validates with (or, where a service validates, the schema the route declares for the docs).
 * Routes without `docs` (internal ones) are left out.
 */
export class OpenApiCollector {
  private readonly routes: CollectedRoute[] = [];
  private readonly components: Record<string, JsonSchema> = {};

  add(route: RouteOptions): void {
    const docs = route.config?.docs;
    if (!docs) return;
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const schema = (route.schema ?? {}) as CollectedRoute['schema'];
    for (const method of methods) {
      if (method === 'HEAD') continue;
      this.routes.push({ method: method.toLowerCase(), url: route.url, docs, schema });
    }
  }

  /** Shared schemas referenced as `#/components/schemas/<name>`. */
  defineComponent(name: string, schema: JsonSchema): void {
    this.components[name] = schema;
  }

  document(serverUrl: string, version: string): JsonSchema {
    const paths: Record<string, Record<string, unknown>> = {};
    for (const route of this.routes) {
      const path = route.url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
      paths[path] ??= {};
      paths[path][route.method] = this.operation(route);
    }
    return {
      openapi: '3.1.0',
      info: {
        title: 'Switchboard API',
        version,
        description:
          'One API key and one prepaid balance for video, image, music and text models. Money: `balance` and statistics in USD cents, estimates in micro-USD, catalog prices as decimal USD strings.',
      },
      servers: [{ url: serverUrl }],
      components: {
        securitySchemes: {
          apiKey: { type: 'http', scheme: 'bearer', bearerFormat: 'API key' },
          admin: { type: 'http', scheme: 'bearer', description: 'The operator ADMIN_TOKEN' },
        },
        schemas: this.components,
      },
      paths,
    };
  }

  private operation(route: CollectedRoute): Record<string, unknown> {
    const { docs, schema } = route;
    const parameters: unknown[] = [];
    for (const [where, source] of [['path', schema.params], ['query', schema.querystring], ['header', schema.headers]] as const) {
      const s = source as { properties?: Record<string, JsonSchema>; required?: string[] } | undefined;
      for (const [name, prop] of Object.entries(s?.properties ?? {})) {
        parameters.push({
          name,
          in: where,
          required: where === 'path' || (s?.required ?? []).includes(name),
          schema: prop,
          ...(typeof prop.description === 'string' ? { description: prop.description } : {}),
        });
      }
    }
    const body = (schema.body as JsonSchema | undefined) ?? docs.requestBody;
    const responses: Record<string, unknown> = {};
    for (const [status, response] of Object.entries(docs.responses)) {
      responses[status] = {
        description: response.description,
        ...(response.schema ? { content: { [response.contentType ?? 'application/json']: { schema: response.schema } } } : {}),
      };
    }
    return {
      summary: docs.summary,
      ...(docs.description ? { description: docs.description } : {}),
      tags: docs.tags,
      operationId: `${route.method}${route.url.replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ? c.toUpperCase() : ''))}`,
      security: docs.auth === 'none' ? [] : [{ [docs.auth]: [] }],
      ...(parameters.length ? { parameters } : {}),
      ...(body ? { requestBody: { required: true, content: { 'application/json': { schema: body } } } } : {}),
      responses,
    };
  }
}
