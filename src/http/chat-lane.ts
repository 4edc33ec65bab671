/**
 * The chat lane: the hot path of the text routes (text-route.ts), answered on the bare HTTP server
 * before Fastify sees the request (docs/decisions.md, "The chat lane", "One request pipeline").
 *
 * It takes a request only when everything about it is the common case: POST to the exact path of a
 * text route, an API key the authenticator has seen in the last 30 s (answered from its cache,
 * without a promise), a JSON body, and a server that is not closing. Anything else (a dashboard
 * session, a key to look up, another content type, a query string) is left to the route's Fastify
 * twin, which does the same work through the framework.
 *
 * Every rule both paths share is the request pipeline's (request-pipeline.ts): the request id,
 * the cached key, JSON parsing, errors (translated, logged, rendered in the route's format, with
 * Retry-After), the access line and the HTTP metrics; the body limit is the route's. What is left
 * here is what Fastify does for its routes: reading the body, and writing the answer.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Metrics } from '../adapters/metrics/metrics.ts';
import { payloadTooLarge } from './body-limits.ts';
import { BodySegments } from './body-segments.ts';
import { JSON_CONTENT_TYPE } from './error-handler.ts';
import { closeOnceAnswered } from './lingering-close.ts';
import type { Span } from '../ports/tracer.port.ts';
import type { RequestPipeline } from './request-pipeline.ts';
import { STREAMED, type TextCaller, type TextRoute } from './text-route.ts';

export interface ChatLaneDeps {
  pipeline: RequestPipeline;
  routes: TextRoute[];
  metrics: Metrics;
  /** True once the server is closing: requests go to Fastify, which serves them with Connection: close. */
  closing: () => boolean;
}

const JSON_REQUEST = /^application\/json\s*(;|$)/i;

/** Returns the lane: it answers the request and returns true, or returns false and leaves it alone. */
export function createChatLane(deps: ChatLaneDeps): (req: IncomingMessage, res: ServerResponse) => boolean {
  const byPath = new Map(deps.routes.map((route) => [route.path, route]));
  return (req, res) => {
    if (req.method !== 'POST') return false;
    const route = byPath.get(req.url ?? '');
    if (!route || deps.closing()) return false;
    const caller = deps.pipeline.cachedCaller(req.headers);
    if (!caller || !JSON_REQUEST.test(req.headers['content-type'] ?? '')) return false;
    deps.metrics.chatLaneRequests.inc({ route: route.path });
    const lane = new LaneRequest(deps.pipeline, route, req, res, { userId: caller.userId, keyId: caller.keyId });
    deps.pipeline.inSpan(lane.span, () => lane.start());
    return true;
  };
}

/** One request on the lane, from its first byte to its log line. */
class LaneRequest {
  readonly #pipeline: RequestPipeline;
  readonly #route: TextRoute;
  readonly #req: IncomingMessage;
  readonly #res: ServerResponse;
  readonly #caller: TextCaller;
  readonly #id: string;
  readonly #started = performance.now();
  readonly span: Span;
  #body: BodySegments | undefined;

  constructor(pipeline: RequestPipeline, route: TextRoute, req: IncomingMessage, res: ServerResponse, caller: TextCaller) {
    this.#pipeline = pipeline;
    this.#route = route;
    this.#req = req;
    this.#res = res;
    this.#caller = caller;
    this.#id = pipeline.requestId(req);
    this.span = pipeline.startRequest('POST', route.path);
  }

  start(): void {
    this.#res.once('close', this.#logged);
    const declared = Number(this.#req.headers['content-length']);
    if (declared > this.#route.bodyLimit) {
      this.#tooLarge();
      return;
    }
    this.#body = new BodySegments(declared);
    this.#req.on('data', this.#data);
    this.#req.once('end', this.#end);
    // A client that leaves while sending: nothing to answer, the close is logged.
    this.#req.once('error', () => {});
  }

  readonly #data = (chunk: Buffer): void => {
    const body = this.#body as BodySegments;
    if (body.size + chunk.length > this.#route.bodyLimit) {
      this.#req.off('data', this.#data);
      this.#req.off('end', this.#end);
      body.take();
      this.#tooLarge();
      return;
    }
    body.push(chunk);
  };

  readonly #end = (): void => {
    // Gathered in segments, never joined here: a large body goes to the CPU pool as they are (body-segments.ts).
    this.#pipeline.parseJson((this.#body as BodySegments).take(), this.#parsed);
  };

  readonly #parsed = (error: Error | null, value?: unknown): void => {
    if (error) {
      this.#fail(error);
      return;
    }
    const id = this.#id;
    let answered: Promise<unknown>;
    try {
      answered = this.#route.answer(this.#caller, value, this.#res, () => ({ 'x-request-id': id }));
    } catch (failure) {
      this.#fail(failure);
      return;
    }
    answered.then(
      (answer) => {
        if (answer !== STREAMED) this.#send(200, { 'content-type': JSON_CONTENT_TYPE }, JSON.stringify(answer));
      },
      (failure: unknown) => this.#fail(failure),
    );
  };

  #tooLarge(): void {
    // The connection cannot be reused mid-body: it closes once the answer is out, lingering (lingering-close.ts).
    closeOnceAnswered(this.#req, this.#res);
    this.#fail(payloadTooLarge());
  }

  #fail(raw: unknown): void {
    const answer = this.#pipeline.failed(raw, this.#route.errorFormat, this.#id);
    const res = this.#res;
    // A stream already under way was ended by its writer; nothing else can be said on it.
    if (res.headersSent) {
      if (!res.writableEnded) res.destroy();
      return;
    }
    this.#send(answer.status, answer.headers, answer.body);
  }

  /** `headers` is the caller's fresh object, completed here. */
  #send(status: number, headers: Record<string, string | number>, json: string): void {
    const res = this.#res;
    if (res.destroyed) return;
    headers['content-length'] = Buffer.byteLength(json);
    headers['x-request-id'] = this.#id;
    res.writeHead(status, headers);
    res.end(json);
  }

  readonly #logged = (): void => {
    // Closed before an answer was started: the client went away (nginx's 499).
    const status = this.#res.headersSent ? this.#res.statusCode : 499;
    this.#pipeline.completed(this.#id, 'POST', this.#route.path, this.#route.path, status, performance.now() - this.#started, this.span);
  };
}
