import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, isAppError } from '../domain/errors.ts';
import type { ErrorRenderers } from './error-rendering.ts';

/**
 * The one place errors become responses. Handlers throw AppError; Fastify's own errors (bad JSON,
 * schema validation, body too large) are translated to the same codes; anything else is a 500 whose
 * details stay in the log.
 */
export function installErrorHandler(app: FastifyInstance, renderers: ErrorRenderers): void {
  app.setErrorHandler((raw: FastifyError | Error, request: FastifyRequest, reply: FastifyReply) => {
    const error = toAppError(raw);
    if (error.status >= 500) request.log.error({ err: raw }, 'request failed');
    else request.log.info({ code: error.code, status: error.status }, error.message);
    sendError(reply, renderers, error);
  });
  app.setNotFoundHandler((request, reply) => {
    sendError(reply, renderers, new AppError('not_found', `no route for ${request.method} ${request.url.split('?')[0]}`));
  });
}

export function sendError(reply: FastifyReply, renderers: ErrorRenderers, error: AppError): FastifyReply {
  if (error.retryAfter !== undefined) reply.header('retry-after', String(Math.ceil(error.retryAfter)));
  const format = reply.request.routeOptions.config?.errorFormat ?? 'envelope';
  return reply.code(error.status).send(renderers.render(format, error, String(reply.request.id)));
}

/** Any error as the AppError it is answered with (Fastify's own errors translated to our codes). */
export function toAppError(raw: unknown): AppError {
  if (isAppError(raw)) return raw;
  if (!(raw instanceof Error)) return new AppError('internal_error', 'internal server error', { cause: raw });
  const fastifyError = raw as FastifyError;
  if (fastifyError.validation) {
    const first = fastifyError.validation[0];
    const where = fastifyError.validationContext ?? 'body';
    const path = first?.instancePath ? `${where}${first.instancePath.replace(/\//g, '.')}` : where;
    const extra = first?.keyword === 'additionalProperties' ? ` (${String((first.params as { additionalProperty?: string }).additionalProperty)})` : '';
    return new AppError('invalid_input', `${path} ${first?.message ?? 'is invalid'}${extra}`, { param: path });
  }
  const status = fastifyError.statusCode;
  if (status === 413) return new AppError('payload_too_large', 'request body is too large');
  if (status === 415) return new AppError('invalid_input', 'the request body must be JSON (Content-Type: application/json)');
  if (status !== undefined && status >= 400 && status < 500) {
    return new AppError('invalid_input', fastifyError.message || 'invalid request');
  }
  return new AppError('internal_error', 'internal server error', { cause: raw });
}
