/**
 * The request pipeline: the cross-cutting rules of an HTTP request, written once and called by both
 * paths of the server, the Fastify app (its hooks, JSON parser and error handler, app.ts) and the chat
 * lane (chat-lane.ts) in front of it: the request id, authentication by a cached API key, the JSON
 * body, errors (translated, logged, rendered in the route's format) and the request's end (HTTP
 * metrics and the access line). Body limits are the routes' own (TextRoute.bodyLimit, body-limits.ts).
 * test/integration/chat-pipeline-parity.test.ts holds both paths to the same answers.
 */
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { Logger } from 'pino';
import type { Metrics } from '../adapters/metrics/metrics.ts';
import type { CpuPool } from '../ports/cpu-pool.port.ts';
import { NOOP_SPAN, NOOP_TRACER, type Span, type Tracer } from '../ports/tracer.port.ts';
import type { ApiKeyAuthenticator } from '../services/accounts/api-key-authenticator.ts';
import { AccessLog } from './access-log.ts';
import { cachedApiKeyAuth } from './auth.ts';
import { type ErrorAnswer, errorAnswer, logFailure, type StoreFullObserver, toAppError } from './error-handler.ts';
import type { ErrorRenderers } from './error-rendering.ts';
import { parseJsonParts } from './json-body.ts';
import type { AuthContext, ErrorFormat } from './request-context.ts';
import { createRequestIds } from './request-ids.ts';

export interface RequestPipelineDeps {
  authenticator: ApiKeyAuthenticator;
  cpu: CpuPool;
  errorRenderers: ErrorRenderers;
  logger: Logger;
  metrics: Metrics;
  storeFull: StoreFullObserver;
  /** A span per request (off: the no-op tracer). */
  tracer?: Tracer;
}

export class RequestPipeline {
  /** The caller's `x-request-id` when sane, else a generated one (request-ids.ts); sent back as `x-request-id`. */
  readonly requestId: (req: IncomingMessage) => string = createRequestIds();
  readonly errorRenderers: ErrorRenderers;
  readonly #deps: RequestPipelineDeps;
  readonly #accessLog: AccessLog;
  readonly #tracer: Tracer;

  constructor(deps: RequestPipelineDeps) {
    this.#deps = deps;
    this.#tracer = deps.tracer ?? NOOP_TRACER;
    this.errorRenderers = deps.errorRenderers;
    this.#accessLog = new AccessLog(deps.logger);
  }

  /** A caller whose API key was seen in the last 30 s, synchronously (auth.ts); undefined sends the request the slow way. */
  cachedCaller(headers: IncomingHttpHeaders): AuthContext | undefined {
    return cachedApiKeyAuth(this.#deps.authenticator, headers);
  }

  /** A JSON body in the parts BodySegments gathered: poisoning refused, nesting and values bounded, large bodies in the CPU pool (json-body.ts). */
  parseJson(parts: Buffer[], done: (error: Error | null, value?: unknown) => void): void {
    parseJsonParts(parts, this.#deps.cpu, done);
  }

  /**
   * Any error as it is answered: translated to our codes, logged with the request id as the Fastify
   * error handler logs it (same lines), rendered in the route's format.
   */
  failed(raw: unknown, format: ErrorFormat, requestId: string): ErrorAnswer {
    const error = toAppError(raw);
    logFailure(this.#deps.logger.child({ requestId }), raw, error, this.#deps.storeFull);
    return errorAnswer(this.errorRenderers, format, error, requestId);
  }

  /** A request's span, named by its route pattern (never its path, which may hold ids). */
  startRequest(method: string, route: string): Span {
    // Tracing off: no attributes or name built per request.
    if (!this.#tracer.enabled) return NOOP_SPAN;
    return this.#tracer.startSpan(`${method} ${route}`, { 'http.request.method': method, 'http.route': route }, { kind: 'server' });
  }

  /** Whether spans are recorded (a caller may skip its own bookkeeping of them when not). */
  get tracing(): boolean {
    return this.#tracer.enabled;
  }

  /** Runs the rest of the request inside its span. */
  inSpan(span: Span, fn: () => void): void {
    this.#tracer.withSpan(span, fn);
  }

  /** A request's end: the HTTP metrics (by route pattern), the access line (by path, without the query) and its span's end. */
  completed(requestId: string, method: string, route: string, path: string, status: number, ms: number, span?: Span): void {
    this.#deps.metrics.observeHttp(method, route, status, ms / 1000);
    this.#accessLog.record(requestId, method, path, status, ms);
    if (span) {
      span.setAttributes({ 'http.response.status_code': status, 'switchboard.request_id': requestId });
      if (status >= 500) span.setAttributes({ 'error.type': String(status) });
      span.end();
    }
  }
}
