import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, isAppError, unavailableDependency } from '../domain/errors.ts';
import type { ErrorRenderers } from './error-rendering.ts';

/**
 * The one place errors become responses. Handlers throw AppError; Fastify's own errors (bad JSON,
 * schema validation, body too large) are translated to the same codes; anything else is a 500 whose
 * details stay in the log.
 */
/** Answers an unknown path itself (the dashboard's page for a browser), or returns undefined to leave it to the JSON 404. */
export type NotFoundPage = (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply> | undefined;

export function installErrorHandler(app: FastifyInstance, renderers: ErrorRenderers, notFoundPage?: NotFoundPage): void {
  app.setErrorHandler((raw: FastifyError | Error, request: FastifyRequest, reply: FastifyReply) => {
    const error = toAppError(raw);
    if (error.code === 'service_unavailable') request.log.warn({ code: error.code, cause: error.message }, 'request answered 503');
    else if (error.status >= 500) request.log.error({ err: raw }, 'request failed');
    else request.log.info({ code: error.code, status: error.status }, error.message);
    sendError(reply, renderers, error);
  });
  app.setNotFoundHandler((request, reply) => {
    const page = notFoundPage?.(request, reply);
    if (page) return page;
    return sendError(reply, renderers, toAppError(new AppError('not_found', `no route for ${request.method} ${request.url.split('?')[0]}`)));
  });
}

/**
 * Errors Fastify raises before routing (a path segment longer than the router's limit, a path that
 * does not decode) in the same envelope, without echoing the path.
 */
export function frameworkErrorHandler(renderers: () => ErrorRenderers) {
  return (raw: FastifyError, request: FastifyRequest, reply: FastifyReply): void => {
    let error: AppError;
    if (raw.code === 'FST_ERR_MAX_PARAM_LENGTH') error = new AppError('uri_too_long', 'the request path is too long');
    else if (raw.code === 'FST_ERR_BAD_URL') error = new AppError('invalid_input', 'the request path is not a valid URL path');
    else error = toAppError(raw);
    request.log.info({ code: error.code, status: error.status }, error.message);
    reply.header('x-request-id', request.id);
    sendError(reply, renderers(), error);
  };
}

export function sendError(reply: FastifyReply, renderers: ErrorRenderers, error: AppError): FastifyReply {
  if (error.retryAfter !== undefined) reply.header('retry-after', String(Math.ceil(error.retryAfter)));
  const format = reply.request.routeOptions.config?.errorFormat ?? 'envelope';
  return reply.code(error.status).send(renderers.render(format, error, String(reply.request.id)));
}

/** Echoed input never makes an answer or a log line longer than this (a 5 MB model name stays 5 MB away). */
const MAX_MESSAGE_CHARS = 1_000;
const MAX_PARAM_CHARS = 200;

/** Any error as the AppError it is answered with (Fastify's own errors translated to our codes), its text bounded. */
export function toAppError(raw: unknown): AppError {
  return bounded(translate(raw));
}

function bounded(error: AppError): AppError {
  const param = error.param;
  if (error.message.length <= MAX_MESSAGE_CHARS && (param === undefined || param.length <= MAX_PARAM_CHARS)) return error;
  return new AppError(error.code, error.message.length > MAX_MESSAGE_CHARS ? `${error.message.slice(0, MAX_MESSAGE_CHARS)}… (cut)` : error.message, {
    status: error.status,
    ...(error.retryAfter !== undefined ? { retryAfter: error.retryAfter } : {}),
    ...(param !== undefined ? { param: param.slice(0, MAX_PARAM_CHARS) } : {}),
    cause: error,
  });
}

function translate(raw: unknown): AppError {
  if (isAppError(raw)) return raw;
  const unavailable = unavailableDependency(raw);
  if (unavailable) return new AppError('service_unavailable', `${unavailable.message}; try again shortly`, { retryAfter: unavailable.retryAfter, cause: raw });
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
