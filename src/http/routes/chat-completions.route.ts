import type { FastifyInstance } from 'fastify';
import type { AppServices } from '../app-services.ts';
import { CHAT_COMPLETIONS_ENDPOINT, chatTextRoute } from '../chat-answer.ts';
import type { OpenStreams } from '../open-streams.ts';
import type { SseHeartbeat } from '../sse.ts';
import { registerTextRoute } from '../text-route.ts';
import { chatErrorResponse, chatRequestBodyDoc } from './chat-route.docs.ts';

/** OpenAI's chat-completions protocol, for every text model; errors as OpenAI error objects. */
export function registerChatCompletionsRoute(app: FastifyInstance, services: AppServices, heartbeat: SseHeartbeat, openStreams: OpenStreams): void {
  registerTextRoute(app, chatTextRoute(services.chat, CHAT_COMPLETIONS_ENDPOINT, heartbeat, openStreams, services.keyDoor), services.authenticator, {
    summary: 'Chat completion (OpenAI protocol), any text model; `stream: true` for server-sent events',
    description:
      'The OpenAI chat-completions protocol: point an OpenAI SDK at `{base_url}/api/v1`. Reserves the most the request can cost (prompt estimate + capped max output) before the call and settles the exact cost from the provider\'s usage. Errors are OpenAI error objects; `error.code` is one of our codes.',
    tags: ['Text'],
    auth: 'apiKey',
    requestBody: chatRequestBodyDoc('openai'),
    responses: {
      200: { description: 'A `chat.completion`, or with `stream: true` a `text/event-stream` of `chat.completion.chunk` frames ending with `data: [DONE]`' },
      400: chatErrorResponse('openai', 'Unknown model, a media model, invalid parameters, or the upstream refused a field (invalid_input)'),
      401: chatErrorResponse('openai', 'Missing or invalid API key'),
      402: chatErrorResponse('openai', 'The reservation does not fit the balance (insufficient_balance); nothing was sent upstream'),
      429: chatErrorResponse('openai', 'The upstream rate-limited every route (rate_limited); Retry-After kept'),
      502: chatErrorResponse('openai', 'Every route failed (upstream_error)'),
      503: chatErrorResponse('openai', 'The upstream is overloaded (service_unavailable)'),
    },
  });
}
