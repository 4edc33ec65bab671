import type { FastifyInstance } from 'fastify';
import type { AppServices } from '../app-services.ts';
import { MESSAGES_ENDPOINT, chatTextRoute } from '../chat-answer.ts';
import type { OpenStreams } from '../open-streams.ts';
import type { SseHeartbeat } from '../sse.ts';
import { registerTextRoute } from '../text-route.ts';
import { chatErrorResponse, chatRequestBodyDoc } from './chat-route.docs.ts';

/**
 * Anthropic's messages protocol, for the models whose catalog `protocols` include `anthropic`; errors
 * as Anthropic error objects. The key comes as `x-api-key` or `Authorization: Bearer`; any
 * `anthropic-version` is accepted (the canonical model covers the versions the SDKs send).
 */
export function registerMessagesRoute(app: FastifyInstance, services: AppServices, heartbeat: SseHeartbeat, openStreams: OpenStreams): void {
  registerTextRoute(app, chatTextRoute(services.chat, MESSAGES_ENDPOINT, heartbeat, openStreams, services.keyDoor), services.authenticator, {
    summary: 'Message (Anthropic protocol), Claude models; `stream: true` for server-sent events',
    description:
      'The Anthropic messages protocol: point an Anthropic SDK at `{base_url}/api` (it appends `/v1/messages`). Authenticate with `x-api-key` or `Authorization: Bearer`. Billing as for chat completions. Errors are Anthropic error objects; `error.code` is one of our codes.',
    tags: ['Text'],
    auth: 'apiKey',
    requestBody: chatRequestBodyDoc('anthropic'),
    responses: {
      200: { description: 'A `message`, or with `stream: true` a `text/event-stream` of message_start, content_block_*, message_delta and message_stop events' },
      400: chatErrorResponse('anthropic', 'Unknown model, a model without this protocol, invalid parameters, or the upstream refused a field'),
      401: chatErrorResponse('anthropic', 'Missing or invalid API key'),
      402: chatErrorResponse('anthropic', 'The reservation does not fit the balance (insufficient_balance); nothing was sent upstream'),
      429: chatErrorResponse('anthropic', 'The upstream rate-limited every route; Retry-After kept'),
      502: chatErrorResponse('anthropic', 'Every route failed'),
      503: chatErrorResponse('anthropic', 'The upstream is overloaded'),
    },
  });
}
