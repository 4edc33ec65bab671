import type { FastifyInstance } from 'fastify';
import type { AppServices } from '../app-services.ts';
import { parseOpenAiEmbeddingsRequest } from '../../protocols/openai-embeddings/openai-embeddings.parser.ts';
import { authOf, requireApiKey } from '../auth.ts';
import { embeddingsBody } from '../embeddings-answer.ts';
import { clientGoneController } from '../sse.ts';
import { chatErrorResponse } from './chat-route.docs.ts';

/**
 * 4 MiB: OpenAI's most per request (300,000 tokens) is about 1.2 MB of English text, or 2 MB as token
 * ids; a body parsed on the event loop should not be much larger (body-limits.ts).
 */
export const EMBEDDINGS_BODY_LIMIT = 4 * 1024 * 1024;

/**
 * OpenAI's embeddings (`client.embeddings.create`) for the embedding models of GET /api/v1/models:
 * billed per input token at the model's price (a hold before the call, usage × price after); the
 * answer is written in the CPU pool when large, else as a stream of pieces (embeddings-answer.ts). At
 * most 3,145,728 values per answer (inputs × dimensions). Errors as OpenAI error objects.
 */
export function registerEmbeddingsRoute(app: FastifyInstance, services: AppServices): void {
  app.post('/api/v1/embeddings', {
    bodyLimit: EMBEDDINGS_BODY_LIMIT,
    onRequest: requireApiKey(services.authenticator),
    config: {
      errorFormat: 'openai',
      docs: {
        summary: 'Embeddings (OpenAI protocol), billed per input token',
        description:
          'The OpenAI embeddings protocol: `input` as a string, strings (at most 2,048), a token array or token arrays; `dimensions` where the model allows it; `encoding_format` float or base64 (little-endian float32). Reserves the most the input can cost (one token per UTF-8 byte, or the token arrays\' lengths) and settles usage.prompt_tokens × the input price, rounded up to the micro-USD. The built-in `local` provider answers offline with deterministic vectors.',
        tags: ['Text'],
        auth: 'apiKey',
        requestBody: {
          type: 'object',
          required: ['model', 'input'],
          additionalProperties: false,
          properties: {
            model: { type: 'string', description: 'An embedding model id (GET /api/v1/models)' },
            input: { description: 'A string, an array of strings, an array of token ids, or an array of token-id arrays' },
            dimensions: { type: 'integer', minimum: 1 },
            encoding_format: { enum: ['float', 'base64'] },
            user: { type: 'string' },
          },
        },
        responses: {
          200: { description: 'A `list` of `embedding` objects with usage' },
          400: chatErrorResponse('openai', 'Unknown model, a chat model, invalid input or dimensions (invalid_input, param names the field)'),
          401: chatErrorResponse('openai', 'Missing or invalid API key'),
          402: chatErrorResponse('openai', 'The reservation does not fit the balance (insufficient_balance) or the key\'s spend cap (key_spend_cap_reached); nothing was sent upstream'),
          403: chatErrorResponse('openai', 'The API key may not use this model (forbidden)'),
          429: chatErrorResponse('openai', 'The key\'s requests per minute or concurrent requests, or the upstream rate-limited every route (rate_limited)'),
          502: chatErrorResponse('openai', 'Every route failed (upstream_error)'),
        },
      },
    },
    handler: async (request, reply) => {
      const parsed = parseOpenAiEmbeddingsRequest(request.body);
      request.body = undefined;
      const { userId, keyId } = authOf(request);
      // The key's door (allow-list, concurrency, rate), as for chat; admitted until the answer is written.
      const release = await services.keyDoor.admit(keyId, parsed.model, 'chat');
      if (reply.raw.closed) release();
      else reply.raw.once('close', release);
      const answer = await services.embeddings.embed({ userId, apiKeyId: keyId, request: parsed, abort: clientGoneController(reply.raw) });
      const body = await embeddingsBody({ model: answer.model, vectors: answer.embeddings.vectors, promptTokens: answer.embeddings.promptTokens, encoding: parsed.encodingFormat }, services.cpu, request.log);
      return reply.type('application/json; charset=utf-8').send(body);
    },
  });
}
