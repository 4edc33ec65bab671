import type { FastifyInstance } from 'fastify';
import { LARGE_BODY_LIMIT } from '../body-limits.ts';
import type { AppServices } from '../app-services.ts';
import { authOf, requireApiKey } from '../auth.ts';
import { clientGoneController } from '../sse.ts';
import { parseAnthropicCountTokensRequest } from '../../protocols/anthropic-messages/anthropic-count-tokens.parser.ts';
import { chatErrorResponse } from './chat-route.docs.ts';

/** The response header that says where a count came from: `counted` by the model's upstream, or `estimated` by the gateway. */
export const TOKEN_COUNT_HEADER = 'x-switchboard-token-count';

/**
 * Anthropic's count_tokens (`client.messages.countTokens`): the input tokens of a messages request,
 * for the Claude models. Free: nothing is held or charged. Errors as Anthropic error objects.
 */
export function registerCountTokensRoute(app: FastifyInstance, services: AppServices): void {
  app.post('/api/v1/messages/count_tokens', {
    // A prompt may carry images, as for /api/v1/messages.
    bodyLimit: LARGE_BODY_LIMIT,
    onRequest: requireApiKey(services.authenticator),
    config: {
      errorFormat: 'anthropic',
      docs: {
        summary: 'Count the input tokens of a message (Anthropic protocol), free',
        description:
          'The body of POST /api/v1/messages without max_tokens (model, messages, system, tools, tool_choice, thinking). Answered by the upstream\'s own count endpoint where the model\'s route has one (Anthropic), exactly by the local model, otherwise by the gateway\'s approximate count: then the answer has `estimated: true` and the header `x-switchboard-token-count: estimated` (else `counted`). Nothing is charged.',
        tags: ['Text'],
        auth: 'apiKey',
        requestBody: { type: 'object', required: ['model', 'messages'], additionalProperties: true, properties: { model: { type: 'string' }, messages: { type: 'array', items: { type: 'object' } } } },
        responses: {
          200: {
            description: '`{input_tokens}`, with `estimated: true` when the gateway estimated it',
            schema: { type: 'object', required: ['input_tokens'], properties: { input_tokens: { type: 'integer' }, estimated: { type: 'boolean' } } },
          },
          400: chatErrorResponse('anthropic', 'Unknown model, a model without the messages protocol, or an invalid field'),
          401: chatErrorResponse('anthropic', 'Missing or invalid API key'),
          403: chatErrorResponse('anthropic', 'The API key may not use this model (forbidden)'),
          429: chatErrorResponse('anthropic', 'The key\'s requests per minute or concurrent requests (rate_limited)'),
        },
      },
    },
    handler: async (request, reply) => {
      const parsed = parseAnthropicCountTokensRequest(request.body);
      request.body = undefined;
      // Free, but it may call the model's upstream: the key's door applies (allow-list, concurrency, rate).
      const release = await services.keyDoor.admit(authOf(request).keyId, parsed.model, 'chat');
      const count = await services.countTokens.count(parsed, clientGoneController(reply.raw).signal).finally(release);
      reply.header(TOKEN_COUNT_HEADER, count.estimated ? 'estimated' : 'counted');
      return count.estimated ? { input_tokens: count.inputTokens, estimated: true } : { input_tokens: count.inputTokens };
    },
  });
}
