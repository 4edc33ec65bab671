import { accountPortsOf } from '../adapters/db/stores/account-ports.ts';
import { createServer } from 'node:http';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyRequest, LogController } from 'fastify';
import { renderAnthropicError } from '../protocols/anthropic-messages/anthropic-messages.errors.ts';
import { renderOpenAiError } from '../protocols/openai-chat/openai-chat.errors.ts';
import type { AppServices } from './app-services.ts';
import { BILLING_PATH } from '../services/billing/billing.module.ts';
import { CHAT_COMPLETIONS_ENDPOINT, chatTextRoute, MESSAGES_ENDPOINT } from './chat-answer.ts';
import { createChatLane } from './chat-lane.ts';
import { frameworkErrorHandler, installErrorHandler } from './error-handler.ts';
import { dashboardNotFoundPage, webUploadOrigins } from './static/web-app.route.ts';
import { ErrorRenderers } from './error-rendering.ts';
import { OpenApiCollector } from './openapi/openapi-collector.ts';
import { BODY_LIMIT } from './body-limits.ts';
import { readBodyParts } from './body-stream.ts';
import { AddressConnectionCap } from './address-connection-cap.ts';
import { ConnectionDrain } from './connection-drain.ts';
import { RequestPipeline } from './request-pipeline.ts';
import { nulInTarget } from './target-nul.ts';
import { AppError } from '../domain/errors.ts';
import type { Span } from '../ports/tracer.port.ts';
import { registerRoutes } from './routes/index.ts';
import { SseHeartbeat } from './sse.ts';
import { OpenStreams } from './open-streams.ts';
import { findEndedCredentials } from '../services/accounts/credential-revocations.ts';



export interface HttpApp {
  app: FastifyInstance;
  errorRenderers: ErrorRenderers;
  openapi: OpenApiCollector;
  openStreams: OpenStreams;
}

/**
 * Builds the Fastify app: hooks, error handling, metrics and every route, on a server whose request
 * handler first offers each request to the chat lane (chat-lane.ts). Does not listen.
 */
export function buildHttpApp(services: AppServices): HttpApp {
  // Typed as Fastify's logger so the instance keeps the default generic parameters.
  const logger: FastifyBaseLogger = services.logger;
  const errorRenderers = new ErrorRenderers(() => `${services.config.publicBaseUrl}${BILLING_PATH}`);
  // The text routes answer errors in their protocol's own shape (errorFormat in the route config).
  errorRenderers.register('openai', (error) => renderOpenAiError(error));
  errorRenderers.register('anthropic', (error, id) => renderAnthropicError(error, id));
  // The rules both paths share: the chat lane and Fastify's hooks, parser and error handler below.
  const pipeline = new RequestPipeline({ authenticator: services.authenticator, cpu: services.cpu, errorRenderers, logger: services.logger, metrics: services.metrics, storeFull: services.storeFull, tracer: services.tracer });
  const requestSpans = new WeakMap<FastifyRequest, Span>();
  const chatHeartbeat = new SseHeartbeat();
  const credentialPorts = accountPortsOf(services.database.db);
  const openStreams = new OpenStreams({
    maxPerUser: services.config.limits.eventStreamsPerUser,
    check: (apiKeyIds, sessionIds) => findEndedCredentials(credentialPorts, apiKeyIds, sessionIds),
    logger: services.logger,
  });
  let closing = false;
  let drain: ConnectionDrain | undefined;
  const chatLane = createChatLane({
    pipeline,
    // The same text routes the Fastify twins serve (routes/chat-completions.route.ts, routes/messages.route.ts).
    routes: [CHAT_COMPLETIONS_ENDPOINT, MESSAGES_ENDPOINT].map((endpoint) => chatTextRoute(services.chat, endpoint, chatHeartbeat, openStreams, services.keyDoor)),
    metrics: services.metrics,
    closing: () => closing,
  });

  const app = Fastify({
    loggerInstance: logger,
    // One access line per request is written by our onResponse hook (with the route and duration).
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'requestId' }),
    requestIdHeader: false,
    genReqId: pipeline.requestId,
    bodyLimit: BODY_LIMIT,
    // Forwarding headers only from the configured proxies (TRUST_PROXY): anyone else could pick the
    // address the rate limits count and the scheme the Secure cookie flag follows.
    trustProxy: services.config.trustProxy,
    // A request on a connection that is still open while the server closes is served (with
    // Connection: close), not refused with 503: a rolling restart must fail no request. New
    // connections are refused from the start of the close, and the front tries another process.
    return503OnClosing: false,
    // A too long path segment (414) or an undecodable path (400) in the standard error body.
    frameworkErrors: frameworkErrorHandler(() => errorRenderers),
    // The server Fastify would build, with the chat lane in front of Fastify's own handler.
    serverFactory: (fastifyHandler, options) => {
      // How often Node looks for requests past their time-out (its default, 30 s, would let a
      // trickled body live far longer than requestTimeout).
      const connectionsCheckingInterval = Math.max(250, Math.min(5_000, Math.floor(services.config.requestTimeoutMs / 4)));
      const server = createServer({ connectionsCheckingInterval }, (req, res) => {
        drain?.admit(res);
        if (!chatLane(req, res)) fastifyHandler(req, res);
      });
      // Kept-alive connections close without resetting a request at the start of a drain (connection-drain.ts).
      drain = new ConnectionDrain(server);
      // What Fastify sets on a server it builds itself (its defaults, as we pass none of these).
      const timeouts = options as { keepAliveTimeout?: number; connectionTimeout?: number };
      server.keepAliveTimeout = timeouts.keepAliveTimeout ?? 72_000;
      // A request must arrive whole in time (a trickled body is cut off with 408); responses, which
      // may stream for long (SSE, chat), are not limited by it.
      server.requestTimeout = services.config.requestTimeoutMs;
      server.headersTimeout = Math.min(20_000, services.config.requestTimeoutMs);
      server.maxConnections = services.config.maxConnections;
      // One address cannot take every slot of maxConnections (address-connection-cap.ts).
      new AddressConnectionCap(services.config.maxConnectionsPerAddress, services.config.trustProxy, services.logger).attach(server);
      server.setTimeout(timeouts.connectionTimeout ?? 0);
      return server;
    },
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, useDefaults: true, allErrors: false } },
  });
  // The same JSON reading as the chat lane: poisoning refused, nesting bounded (json-body.ts).
  app.removeContentTypeParser('application/json');
  // Read in segments rather than Fastify's `parseAs: 'buffer'`, which joins the whole body on the loop (body-stream.ts).
  app.addContentTypeParser('application/json', (request, payload, done) =>
    readBodyParts(payload, request.headers['content-length'], request.routeOptions.bodyLimit, (error, parts) => (error ? done(error) : pipeline.parseJson(parts ?? [], done))),
  );
  app.decorateRequest('auth', null);
  // A browser's unknown path gets the dashboard's own not-found page; the API keeps its JSON 404.
  installErrorHandler(app, errorRenderers, services.storeFull, dashboardNotFoundPage(webUploadOrigins(services.config)));
  app.addHook('preClose', (done) => {
    closing = true;
    drain?.start();
    // Agent event streams never end by themselves: they would hold the close until its bound. Their
    // readers resume elsewhere; chat streams in flight are left to finish (chat.close's grace).
    openStreams.shutdown();
    done();
  });
  // Revocations from every process close this process's streams (open-streams.ts). Not awaited: a bus
  // that is away must not hold the start; the periodic re-check covers until it is subscribed.
  app.addHook('onReady', (done) => {
    openStreams.start(services.bus).catch((error: unknown) => services.logger.warn({ err: error }, 'subscribing to credential revocations failed'));
    done();
  });
  app.addHook('onClose', (_instance, done) => {
    chatHeartbeat.stop();
    openStreams.stop().then(() => done(), done);
  });

  const openapi = new OpenApiCollector();
  app.addHook('onRoute', (route) => openapi.add(route));

  // Callback-style hooks: they run on every request, and an async hook costs a promise and a
  // microtask hop each.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    const nul = nulInTarget(request.url);
    if (nul !== undefined) return done(new AppError('invalid_input', `${nul} holds a NUL character (%00), which no id or parameter may contain`, { param: nul }));
    if (!pipeline.tracing) return done();
    // The rest of the request (its hooks, handler and what it enqueues) runs inside the request's span.
    const span = pipeline.startRequest(request.method, request.routeOptions.url ?? 'unmatched');
    requestSpans.set(request, span);
    pipeline.inSpan(span, done);
  });
  app.addHook('onResponse', (request, reply, done) => {
    pipeline.completed(String(request.id), request.method, request.routeOptions.url ?? 'unmatched', request.url.split('?')[0] ?? '', reply.statusCode, reply.elapsedTime, requestSpans.get(request));
    done();
  });

  registerRoutes(app, services, openapi, chatHeartbeat, openStreams);
  return { app, errorRenderers, openapi, openStreams };
}
