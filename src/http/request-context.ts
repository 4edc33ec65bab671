/** Who is calling, set by the auth hooks before a handler runs. */
export interface AuthContext {
  userId: string;
  /** The API key used, or undefined for a dashboard session. */
  keyId: string | undefined;
  via: 'api_key' | 'session';
}

/** How errors of a route are rendered: the service envelope, or a chat protocol's own error object. */
export type ErrorFormat = 'envelope' | 'openai' | 'anthropic';

/** Documentation of a route for the OpenAPI document (schemas Fastify validates are read from `schema`). */
export interface RouteDocs {
  summary: string;
  description?: string;
  tags: string[];
  /** `apiKey`: bearer API key; `admin`: bearer ADMIN_TOKEN; `none`: public. */
  auth: 'apiKey' | 'admin' | 'none';
  /** A request body schema shown in the docs but validated by the service, not by Fastify. */
  requestBody?: Record<string, unknown>;
  responses: Record<string, { description: string; schema?: Record<string, unknown>; contentType?: string }>;
}

declare module 'fastify' {
  interface FastifyRequest {
    auth: AuthContext | null;
  }
  interface FastifyContextConfig {
    docs?: RouteDocs;
    errorFormat?: ErrorFormat;
  }
}
