/**
 * The two chat endpoints as text routes (text-route.ts), served by the chat lane and by their Fastify
 * twins alike: each endpoint's protocol (parse the client's body, render a whole answer, encode a
 * stream, render errors), and answerChat, which runs the call and answers it as one JSON body or as an
 * event stream.
 */
import type { ServerResponse } from 'node:http';
import type { ChatProtocol, ChatRequest } from '../domain/chat/chat-request.types.ts';
import type { ChatResponse, ChatStreamEncoder } from '../domain/chat/chat-response.types.ts';
import { DROPPED_FIELDS_HEADER } from '../domain/chat/sampling-rules.ts';
import { parseAnthropicMessagesRequest } from '../protocols/anthropic-messages/anthropic-messages.parser.ts';
import { renderAnthropicMessage } from '../protocols/anthropic-messages/anthropic-messages.response.ts';
import { createAnthropicStreamEncoder } from '../protocols/anthropic-messages/anthropic-stream.encoder.ts';
import { parseOpenAiChatRequest } from '../protocols/openai-chat/openai-chat.parser.ts';
import { renderOpenAiChatResponse } from '../protocols/openai-chat/openai-chat.response.ts';
import { createOpenAiStreamEncoder } from '../protocols/openai-chat/openai-stream.encoder.ts';
import type { KeyDoor } from '../services/accounts/key-door.ts';
import type { ChatService } from '../services/chat/chat.service.ts';
import { LARGE_BODY_LIMIT } from './body-limits.ts';
import type { OpenStreams } from './open-streams.ts';
import type { ErrorFormat } from './request-context.ts';
import { clientGoneController, type SseHeartbeat, writeEventStream } from './sse.ts';
import { type ResponseHeaders, STREAMED, type TextCaller, type TextRoute } from './text-route.ts';

export interface ChatAnswering {
  /** A whole answer as the protocol's JSON body. */
  renderResponse(response: ChatResponse): unknown;
  /** The protocol's stream encoder, for our request id. */
  streamEncoder(id: string): ChatStreamEncoder;
}

/** One chat endpoint: its path and its wire protocol. */
export interface ChatEndpoint {
  path: string;
  /** Bytes: text requests may carry pictures as base64. */
  bodyLimit: number;
  protocol: ChatProtocol;
  /** How its errors are rendered (the protocol's own error object). */
  errorFormat: ErrorFormat;
  /** The client's JSON body as the canonical request, and how to answer it; throws invalid_input naming the field. */
  parse(body: unknown): { request: ChatRequest; answering: ChatAnswering };
}

export const CHAT_COMPLETIONS_ENDPOINT: ChatEndpoint = {
  path: '/api/v1/chat/completions',
  bodyLimit: LARGE_BODY_LIMIT,
  protocol: 'openai',
  errorFormat: 'openai',
  parse(body) {
    const { request, includeUsage } = parseOpenAiChatRequest(body);
    const model = request.model;
    return { request, answering: { renderResponse: renderOpenAiChatResponse, streamEncoder: (id) => createOpenAiStreamEncoder({ includeUsage, id, model }) } };
  },
};

export const MESSAGES_ENDPOINT: ChatEndpoint = {
  path: '/api/v1/messages',
  bodyLimit: LARGE_BODY_LIMIT,
  protocol: 'anthropic',
  errorFormat: 'anthropic',
  parse(body) {
    const request = parseAnthropicMessagesRequest(body);
    const model = request.model;
    return { request, answering: { renderResponse: renderAnthropicMessage, streamEncoder: (id) => createAnthropicStreamEncoder({ id, model }) } };
  },
};

/** A chat endpoint as a text route, on both paths: the body parsed by the endpoint's protocol, then answerChat. */
export function chatTextRoute(chat: ChatService, endpoint: ChatEndpoint, heartbeat: SseHeartbeat, openStreams: OpenStreams, door: KeyDoor): TextRoute {
  return {
    path: endpoint.path,
    errorFormat: endpoint.errorFormat,
    bodyLimit: endpoint.bodyLimit,
    answer: (caller, body, res, streamHeaders) => {
      const parsed = endpoint.parse(body);
      // The key's door limits (models, concurrency, rate); admitted until the answer has ended: for a
      // client that left, until its upstream call (still working, and billed) has ended too.
      return door.admit(caller.keyId, parsed.request.model, 'chat').then((release) => answerChat(chat, caller, endpoint.protocol, parsed, res, streamHeaders, heartbeat, openStreams).finally(release));
    },
  };
}

/**
 * Runs the call; resolves with the whole answer's JSON body (the caller sends it), or STREAMED once it
 * has written the event stream on `res` (status 200, the SSE headers plus those `streamHeaders`
 * returns). Not an async function, on purpose: its caller's frame (which holds the parsed request,
 * the whole prompt) ends once the call has started, and the continuation keeps only what answering
 * needs, so a long stream does not keep the prompt alive.
 */
export function answerChat(
  chat: ChatService,
  caller: TextCaller,
  protocol: ChatProtocol,
  parsed: { request: ChatRequest; answering: ChatAnswering },
  res: ServerResponse,
  streamHeaders: () => ResponseHeaders,
  heartbeat: SseHeartbeat,
  openStreams: OpenStreams,
): Promise<unknown> {
  const { answering } = parsed;
  // A revoked key (or an ended session) stops the request at once; a client that leaves does not
  // stop its upstream call, which is read to its end for its usage (ChatCall.onAbort).
  // Only a stream can be revoked (open-streams.ts): a whole answer needs no second controller.
  const stop = parsed.request.stream ? new AbortController() : undefined;
  const call = { userId: caller.userId, apiKeyId: caller.keyId, protocol, request: parsed.request, abort: clientGoneController(res), ...(stop ? { stop: stop.signal } : {}) };
  return chat.complete(call).then(async (answer) => {
    // Merged into the head by both paths' writeHead (the lane's, Fastify's, the event stream's).
    if (answer.droppedFields) res.setHeader(DROPPED_FIELDS_HEADER, answer.droppedFields.join(', '));
    if (answer.kind === 'response') return answering.renderResponse(answer.response);
    // Revoking the key (or ending the session) ends the stream and cancels the upstream; what was
    // used is settled.
    const lease = openStreams.open({ userId: caller.userId, keyId: caller.keyId, sessionId: caller.sessionId }, { counted: false });
    lease.onRevoke((reason) => stop?.abort(new Error(reason)));
    try {
      await writeEventStream(res, streamHeaders(), answer.events, answering.streamEncoder(answer.id), heartbeat);
    } finally {
      lease.release();
    }
    // The stream to the client has ended; the upstream of a client that left may still be read for
    // its usage, and the request counts for its key until then.
    await answer.ended;
    return STREAMED;
  });
}
