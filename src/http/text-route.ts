/**
 * A text route: a POST endpoint that answers an API-key caller's JSON body, as one JSON body or as an
 * event stream (chat completions, messages; any new text endpoint). It is served on two paths through
 * one request pipeline (request-pipeline.ts): the chat lane takes the common case on the bare server
 * (chat-lane.ts), and its Fastify twin (registerTextRoute) everything else (dashboard sessions, a key
 * not yet cached, another content type, a query string) and the API reference.
 *
 * A new text route: build a TextRoute, register its twin with registerTextRoute in its route file, and
 * add it to the lane's routes in app.ts.
 */
import type { ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ApiKeyAuthenticator } from '../services/accounts/api-key-authenticator.ts';
import { authOf, requireApiKey } from './auth.ts';
import type { ErrorFormat, RouteDocs } from './request-context.ts';

/** Headers for a response: what writeHead takes. */
export type ResponseHeaders = Record<string, string | number | string[]>;

/** An answer's result when the route wrote the response (an event stream) itself. */
export const STREAMED = Symbol('streamed');

export interface TextCaller {
  userId: string;
  keyId: string | undefined;
  /** The dashboard session, when the request came with one instead of a key. */
  sessionId?: string | undefined;
}

export interface TextRoute {
  path: string;
  /** How its errors are rendered (a protocol's own error object, or the service envelope). */
  errorFormat: ErrorFormat;
  /** Bytes; a larger body is a 413 on both paths. */
  bodyLimit: number;
  /**
   * Answers the client's parsed JSON body: resolves with the JSON body to send (status 200), or
   * STREAMED once it has written the response on `res` (status 200, its headers plus those
   * `streamHeaders` returns); throws or rejects with the error to answer. Should not be an async
   * function: a long stream must not keep the client's body alive (see chat-answer.ts, answerChat).
   */
  answer(caller: TextCaller, body: unknown, res: ServerResponse, streamHeaders: () => ResponseHeaders): Promise<unknown>;
}

/** The Fastify twin of a text route (the lane takes the common case first): API key or session, the route's body limit and error format. */
export function registerTextRoute(app: FastifyInstance, route: TextRoute, authenticator: ApiKeyAuthenticator, docs: RouteDocs): void {
  app.post(route.path, {
    bodyLimit: route.bodyLimit,
    onRequest: requireApiKey(authenticator),
    config: { errorFormat: route.errorFormat, docs },
    handler: textRouteHandler(route),
  });
}

/** Not an async function (see TextRoute.answer): the client's body is dropped from the request before the answer starts. */
function textRouteHandler(route: TextRoute) {
  return (request: FastifyRequest, reply: FastifyReply): Promise<unknown> => {
    const body = request.body;
    request.body = undefined;
    const streamHeaders = (): ResponseHeaders => {
      // Fastify sends nothing itself from here; the stream is written on the socket.
      reply.hijack();
      reply.statusCode = 200;
      const headers: ResponseHeaders = {};
      for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) headers[name] = value;
      return headers;
    };
    const caller = { ...authOf(request), sessionId: request.dashboardSession?.sessionId };
    return route.answer(caller, body, reply.raw, streamHeaders).then((answer) => (answer === STREAMED ? reply : answer));
  };
}
