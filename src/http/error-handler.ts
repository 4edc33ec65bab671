import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isStoreFull } from '../adapters/db/db-errors.ts';
import { AppError, isAppError, unavailableDependency } from '../domain/errors.ts';
import { payloadTooLarge } from './body-limits.ts';
import type { ErrorRenderers } from './error-rendering.ts';
import { closeOnceAnswered } from './lingering-close.ts';
import type { ErrorFormat } from './request-context.ts';

/**
 * The one place errors become responses, on Fastify's routes and on the chat lane (through the
 * request pipeline, request-pipeline.ts): translated (toAppError), logged (logFailure), rendered in the
 * route's format (errorAnswer). Handlers throw AppError; Fastify's own errors (bad JSON, schema
 * validation, body too large) are translated to the same codes; anything else is a 500 whose details
 * stay in the log.
 */
/** Answers an unknown path itself (the dashboard's page for a browser), or returns undefined to leave it to the JSON 404. */
export type NotFoundPage = (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply> | undefined;

/** Told of every answer that says the store is full (store-full-watch.ts: readiness, and one log line instead of one per request). */
export interface StoreFullObserver {
  noticed(): void;
}

export function installErrorHandler(app: FastifyInstance, renderers: ErrorRenderers, storeFull: StoreFullObserver, notFoundPage?: NotFoundPage): void {
  app.setErrorHandler((raw: FastifyError | Error, request: FastifyRequest, reply: FastifyReply) => {
    const error = toAppError(raw);
    logFailure(request.log, raw, error, storeFull);
    sendError(reply, renderers, error);
  });
  app.setNotFoundHandler((request, reply) => {
    const page = notFoundPage?.(request, reply);
    if (page) return page;
    return sendError(reply, renderers, toAppError(new AppError('not_found', `no route for ${request.method} ${request.url.split('?')[0]}`)));
  });
}

/** How a failed request is logged, on the request's logger (which carries its id), whichever path answered it. */
export function logFailure(log: FailureLog, raw: unknown, error: AppError, storeFull: StoreFullObserver): void {
  // The watch says it once; each refused request has its access line.
  if (error.code === 'storage_full') storeFull.noticed();
  else if (error.code === 'service_unavailable') log.warn({ code: error.code, cause: error.message }, 'request answered 503');
  else if (error.status >= 500) log.error({ err: raw }, 'request failed');
  else log.info({ code: error.code, status: error.status }, error.message);
}

/** The part of a pino logger logFailure writes on (Fastify's request logger and pino's child alike). */
export interface FailureLog {
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
  info(fields: object, message: string): void;
}

/** An error as it is sent: the status, the headers it adds, the rendered JSON body. */
export interface ErrorAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** An error rendered in a route's format, with its Retry-After, ready to send on any path. */
export function errorAnswer(renderers: ErrorRenderers, format: ErrorFormat, error: AppError, requestId: string): ErrorAnswer {
  const headers: Record<string, string> = { 'content-type': JSON_CONTENT_TYPE };
  if (error.retryAfter !== undefined) headers['retry-after'] = String(Math.ceil(error.retryAfter));
  return { status: error.status, headers, body: JSON.stringify(renderers.render(format, error, requestId)) };
}

/** What Fastify sets on a JSON body, and what the chat lane sets too. */
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

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
  // Refused before its body was read (an early 401 or 413): the connection goes once the answer is out.
  if (!reply.request.raw.complete) closeOnceAnswered(reply.request.raw, reply.raw);
  const answer = errorAnswer(renderers, reply.request.routeOptions.config?.errorFormat ?? 'envelope', error, String(reply.request.id));
  // A string with a JSON content type is sent as it is (already serialised).
  return reply.code(answer.status).headers(answer.headers).send(answer.body);
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

/** Seconds a client waits before trying again on a full store: someone has to free space first. */
const STORE_FULL_RETRY_AFTER_S = 30;

function translate(raw: unknown): AppError {
  if (isAppError(raw)) return raw;
  if (isStoreFull(raw)) {
    return new AppError('storage_full', 'the gateway\'s store is full (no space left on its disk); nothing was written: try again later', { retryAfter: STORE_FULL_RETRY_AFTER_S, cause: raw });
  }
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
  if (status === 413) return payloadTooLarge();
  if (status === 415) return new AppError('invalid_input', 'the request body must be JSON (Content-Type: application/json)');
  if (status !== undefined && status >= 400 && status < 500) {
    return new AppError('invalid_input', fastifyError.message || 'invalid request');
  }
  return new AppError('internal_error', 'internal server error', { cause: raw });
}
