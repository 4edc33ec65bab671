/**
 * The part of both text routes after parsing: run the call, then answer it as one JSON body or as an
 * event stream, in the route's protocol. Not an async function, on purpose: its caller's frame (which
 * holds the parsed request, the whole prompt) ends once the call has started, and the continuation
 * keeps only what answering needs, so a long stream does not keep the prompt alive.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ChatProtocol, ChatRequest } from '../domain/chat/chat-request.types.ts';
import type { ChatResponse, ChatStreamEncoder } from '../domain/chat/chat-response.types.ts';
import type { ChatService } from '../services/chat/chat.service.ts';
import { authOf } from './auth.ts';
import { clientGoneController, type SseHeartbeat, writeEventStream } from './sse.ts';

export interface ChatAnswering {
  /** A whole answer as the protocol's JSON body. */
  renderResponse(response: ChatResponse): unknown;
  /** The protocol's stream encoder, for our request id. */
  streamEncoder(id: string): ChatStreamEncoder;
}

export function answerChat(
  chat: ChatService,
  request: FastifyRequest,
  reply: FastifyReply,
  protocol: ChatProtocol,
  chatRequest: ChatRequest,
  answering: ChatAnswering,
  heartbeat: SseHeartbeat,
): Promise<unknown> {
  // The client's JSON is not needed again either.
  request.body = undefined;
  const { userId, keyId } = authOf(request);
  return chat.complete({ userId, apiKeyId: keyId, protocol, request: chatRequest, abort: clientGoneController(reply) }).then(async (answer) => {
    if (answer.kind === 'response') return answering.renderResponse(answer.response);
    await writeEventStream(reply, answer.events, answering.streamEncoder(answer.id), heartbeat);
    return reply;
  });
}
