/**
 * The chat lane: the hot path of the two text endpoints, answered on the bare HTTP server before
 * Fastify sees the request (docs/decisions.md, "The chat lane").
 *
 * It takes a request only when everything about it is the common case: POST to the exact path of a
 * text endpoint, an API key the authenticator has seen in the last 30 s (answered from its cache,
 * without a promise), a JSON body, and a server that is not closing. Anything else (a dashboard
 * session, a key to look up, another content type, a query string) is left to the Fastify route,
 * which does the same work through the framework. Both call the same protocol code and answerChat.
 *
 * What it keeps of the Fastify path: the request id (`x-request-id`), the body limit (413), JSON
 * parsing with prototype-poisoning protection, errors rendered in the endpoint's protocol through the
 * same renderers (status and Retry-After), the log lines of errors, the access log line and the HTTP
 * metrics.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { Metrics } from '../adapters/metrics/metrics.ts';
import type { CpuPool } from '../ports/cpu-pool.port.ts';
import { AppError } from '../domain/errors.ts';
import type { ApiKeyAuthenticator } from '../services/accounts/api-key-authenticator.ts';
import type { ChatService } from '../services/chat/chat.service.ts';
import type { AccessLog } from './access-log.ts';
import { bearerTokenOf } from './auth.ts';
import { answerChat, type ChatCaller, type ChatEndpoint, STREAMED } from './chat-answer.ts';
import { toAppError } from './error-handler.ts';
import { INLINE_JSON_BYTES, parseJsonBody, readJsonBody } from './json-body.ts';
import type { ErrorRenderers } from './error-rendering.ts';
import type { OpenStreams } from './open-streams.ts';
import type { SseHeartbeat } from './sse.ts';

export interface ChatLaneDeps {
  chat: ChatService;
  authenticator: ApiKeyAuthenticator;
  endpoints: ChatEndpoint[];
  errorRenderers: ErrorRenderers;
  logger: Logger;
  accessLog: AccessLog;
  metrics: Metrics;
  requestId: (req: IncomingMessage) => string;
  heartbeat: SseHeartbeat;
  openStreams: OpenStreams;
  /** Bytes; a larger body is a 413, as on the Fastify path. */
  bodyLimit: number;
  /** Where large bodies are parsed, off the event loop. */
  cpu: CpuPool;
  /** True once the server is closing: requests go to Fastify, which answers 503. */
  closing: () => boolean;
}

const JSON_CONTENT_TYPE = /^application\/json\s*(;|$)/i;

/** Returns the lane: it answers the request and returns true, or returns false and leaves it alone. */
export function createChatLane(deps: ChatLaneDeps): (req: IncomingMessage, res: ServerResponse) => boolean {
  const byPath = new Map(deps.endpoints.map((endpoint) => [endpoint.path, endpoint]));
  return (req, res) => {
    if (req.method !== 'POST') return false;
    const endpoint = byPath.get(req.url ?? '');
    if (!endpoint || deps.closing()) return false;
    const token = bearerTokenOf(req.headers);
    const caller = token ? deps.authenticator.cached(token) : undefined;
    if (!caller || !JSON_CONTENT_TYPE.test(req.headers['content-type'] ?? '')) return false;
    deps.metrics.chatLaneRequests.inc({ route: endpoint.path });
    new LaneRequest(deps, endpoint, req, res, caller).start();
    return true;
  };
}

/** One request on the lane, from its first byte to its log line. */
class LaneRequest {
  readonly #deps: ChatLaneDeps;
  readonly #endpoint: ChatEndpoint;
  readonly #req: IncomingMessage;
  readonly #res: ServerResponse;
  readonly #caller: ChatCaller;
  readonly #id: string;
  readonly #started = performance.now();
  #chunks: Buffer[] = [];
  #size = 0;

  constructor(deps: ChatLaneDeps, endpoint: ChatEndpoint, req: IncomingMessage, res: ServerResponse, caller: ChatCaller) {
    this.#deps = deps;
    this.#endpoint = endpoint;
    this.#req = req;
    this.#res = res;
    this.#caller = { userId: caller.userId, keyId: caller.keyId };
    this.#id = deps.requestId(req);
  }

  start(): void {
    this.#res.once('close', this.#logged);
    const declared = Number(this.#req.headers['content-length']);
    if (declared > this.#deps.bodyLimit) {
      this.#tooLarge();
      return;
    }
    this.#req.on('data', this.#data);
    this.#req.once('end', this.#end);
    // A client that leaves while sending: nothing to answer, the close is logged.
    this.#req.once('error', () => {});
  }

  readonly #data = (chunk: Buffer): void => {
    this.#size += chunk.length;
    if (this.#size > this.#deps.bodyLimit) {
      this.#req.off('data', this.#data);
      this.#req.off('end', this.#end);
      this.#tooLarge();
      return;
    }
    this.#chunks.push(chunk);
  };

  readonly #end = (): void => {
    const chunks = this.#chunks;
    this.#chunks = [];
    const body = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, this.#size);
    // The common, small body is read right here (no promise on the hot path); a large one in the CPU pool.
    if (body.length > INLINE_JSON_BYTES) {
      readJsonBody(body, this.#deps.cpu).then(
        (value) => this.#answer(value),
        (error: unknown) => this.#fail(error),
      );
      return;
    }
    let value: unknown;
    try {
      value = parseJsonBody(body.toString('utf8'));
    } catch (error) {
      this.#fail(error);
      return;
    }
    this.#answer(value);
  };

  #answer(value: unknown): void {
    let parsed: ReturnType<ChatEndpoint['parse']>;
    try {
      parsed = this.#endpoint.parse(value);
    } catch (error) {
      this.#fail(error);
      return;
    }
    const id = this.#id;
    answerChat(this.#deps.chat, this.#caller, this.#endpoint.protocol, parsed, this.#res, () => ({ 'x-request-id': id }), this.#deps.heartbeat, this.#deps.openStreams).then(
      (body) => {
        if (body !== STREAMED) this.#send(200, JSON.stringify(body));
      },
      (error: unknown) => this.#fail(error),
    );
  }

  #tooLarge(): void {
    this.#fail(new AppError('payload_too_large', 'request body is too large'));
    // Stop reading a body we refused: the connection cannot be reused mid-body.
    this.#res.once('finish', () => this.#req.destroy());
  }

  /** As the Fastify error handler: logged, then rendered in the endpoint's protocol. */
  #fail(raw: unknown): void {
    const error = toAppError(raw);
    if (error.status >= 500) this.#deps.logger.error({ err: raw, requestId: this.#id }, 'request failed');
    else this.#deps.logger.info({ requestId: this.#id, code: error.code, status: error.status }, error.message);
    const res = this.#res;
    // A stream already under way was ended by its writer; nothing else can be said on it.
    if (res.headersSent) {
      if (!res.writableEnded) res.destroy();
      return;
    }
    const body = JSON.stringify(this.#deps.errorRenderers.render(this.#endpoint.errorFormat, error, this.#id));
    this.#send(error.status, body, error.retryAfter === undefined ? undefined : String(Math.ceil(error.retryAfter)));
  }

  #send(status: number, json: string, retryAfter?: string): void {
    const res = this.#res;
    if (res.destroyed) return;
    const headers: Record<string, string | number> = { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(json), 'x-request-id': this.#id };
    if (retryAfter !== undefined) headers['retry-after'] = retryAfter;
    res.writeHead(status, headers);
    res.end(json);
  }

  readonly #logged = (): void => {
    const ms = performance.now() - this.#started;
    // Closed before an answer was started: the client went away (nginx's 499).
    const status = this.#res.headersSent ? this.#res.statusCode : 499;
    this.#deps.metrics.observeHttp('POST', this.#endpoint.path, status, ms / 1000);
    this.#deps.accessLog.record(this.#id, 'POST', this.#endpoint.path, status, ms);
  };
}

/** JSON as the Fastify path parses it: an empty body, bad JSON and prototype poisoning are refused. */
