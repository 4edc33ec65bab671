import { randomBytes } from 'node:crypto';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import { renderAnthropicError } from '../protocols/anthropic-messages/anthropic-messages.errors.ts';
import { renderOpenAiError } from '../protocols/openai-chat/openai-chat.errors.ts';
import type { AppServices } from '../services/app-services.ts';
import { installErrorHandler } from './error-handler.ts';
import { ErrorRenderers } from './error-rendering.ts';
import { OpenApiCollector } from './openapi/openapi-collector.ts';
import { registerRoutes } from './routes/index.ts';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

export interface HttpApp {
  app: FastifyInstance;
  errorRenderers: ErrorRenderers;
  openapi: OpenApiCollector;
}

/** Builds the Fastify app: hooks, error handling, metrics and every route. Does not listen. */
export function buildHttpApp(services: AppServices): HttpApp {
  // Typed as Fastify's logger so the instance keeps the default generic parameters.
  const logger: FastifyBaseLogger = services.logger;
  // Request ids: a random prefix per process and a counter, unique without a random draw per request.
  const idPrefix = `req_${randomBytes(6).toString('base64url')}`;
  let idCounter = 0;
  const app = Fastify({
    loggerInstance: logger,
    // One access line per request is written by our onResponse hook (with the route and duration).
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'requestId' }),
    requestIdHeader: false,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : `${idPrefix}${(idCounter++).toString(36)}`;
    },
    bodyLimit: 32 * 1024 * 1024,
    trustProxy: true,
    return503OnClosing: true,
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, useDefaults: true, allErrors: false } },
  });
  app.decorateRequest('auth', null);

  const errorRenderers = new ErrorRenderers();
  // The text routes answer errors in their protocol's own shape (errorFormat in the route config).
  errorRenderers.register('openai', (error) => renderOpenAiError(error));
  errorRenderers.register('anthropic', (error, requestId) => renderAnthropicError(error, requestId));
  installErrorHandler(app, errorRenderers);

  const openapi = new OpenApiCollector();
  app.addHook('onRoute', (route) => openapi.add(route));

  // Callback-style hooks: they run on every request, and an async hook costs a promise and a
  // microtask hop each.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched';
    const seconds = reply.elapsedTime / 1000;
    services.metrics.httpRequests.inc({ method: request.method, route, status: reply.statusCode });
    services.metrics.httpDuration.observe({ method: request.method, route }, seconds);
    request.log.info(
      { method: request.method, url: request.url.split('?')[0], status: reply.statusCode, ms: Math.round(reply.elapsedTime * 10) / 10 },
      'request completed',
    );
    done();
  });

  registerRoutes(app, services, openapi);
  return { app, errorRenderers, openapi };
}
