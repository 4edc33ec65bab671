import type { FastifyInstance } from 'fastify';
import { parseAnthropicMessagesRequest } from '../../protocols/anthropic-messages/anthropic-messages.parser.ts';
import { renderAnthropicMessage } from '../../protocols/anthropic-messages/anthropic-messages.response.ts';
import { createAnthropicStreamEncoder } from '../../protocols/anthropic-messages/anthropic-stream.encoder.ts';
import type { AppServices } from '../../services/app-services.ts';
import { requireApiKey } from '../auth.ts';
import { answerChat } from '../chat-answer.ts';
import { SseHeartbeat } from '../sse.ts';
import { chatErrorResponse, chatRequestBodyDoc } from './chat-route.docs.ts';

/**
 * Anthropic's messages protocol, for the models whose catalog `protocols` include `anthropic`; errors
 * as Anthropic error objects. The key comes as `x-api-key` or `Authorization: Bearer`; any
 * `anthropic-version` is accepted (the canonical model covers the versions the SDKs send).
 */
export function registerMessagesRoute(app: FastifyInstance, services: AppServices): void {
  const heartbeat = new SseHeartbeat();
  app.addHook('onClose', async () => heartbeat.stop());
  app.post('/api/v1/messages', {
    preHandler: requireApiKey(services.authenticator),
    config: {
      errorFormat: 'anthropic',
      docs: {
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
      },
    },
    // Not an async function (see answerChat): a long stream must not keep the prompt alive.
    handler: (request, reply) => {
      const chat = parseAnthropicMessagesRequest(request.body);
      const model = chat.model;
      return answerChat(
        services.chat,
        request,
        reply,
        'anthropic',
        chat,
        { renderResponse: renderAnthropicMessage, streamEncoder: (id) => createAnthropicStreamEncoder({ id, model }) },
        heartbeat,
      );
    },
  });
}
