import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppServices } from '../../services/app-services.ts';
import { authOf } from '../auth.ts';
import { answerChat, type ChatEndpoint, type ResponseHeaders, STREAMED } from '../chat-answer.ts';
import type { OpenStreams } from '../open-streams.ts';
import type { SseHeartbeat } from '../sse.ts';

/**
 * The Fastify handler of a text endpoint: the path of the requests the chat lane does not take
 * (dashboard sessions, a key not yet in the authenticator's cache, a body that is not JSON). Not an
 * async function (see answerChat): a long stream must not keep the prompt alive.
 */
export function chatRouteHandler(services: AppServices, endpoint: ChatEndpoint, heartbeat: SseHeartbeat, openStreams: OpenStreams) {
  return (request: FastifyRequest, reply: FastifyReply): Promise<unknown> => {
    const parsed = endpoint.parse(request.body);
    // The client's JSON is not needed again either.
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
    return answerChat(services.chat, caller, endpoint.protocol, parsed, reply.raw, streamHeaders, heartbeat, openStreams).then((body) => (body === STREAMED ? reply : body));
  };
}
