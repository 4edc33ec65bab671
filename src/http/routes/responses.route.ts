import type { FastifyInstance } from 'fastify';
import { AppError } from '../../domain/errors.ts';
import { parseResponsesRequest } from '../../protocols/openai-responses/openai-responses.parser.ts';
import { renderResponsesObject } from '../../protocols/openai-responses/openai-responses.response.ts';
import { createResponsesStreamEncoder } from '../../protocols/openai-responses/openai-responses-stream.encoder.ts';
import type { AppServices } from '../app-services.ts';
import { LARGE_BODY_LIMIT } from '../body-limits.ts';
import { requireApiKey } from '../auth.ts';
import { type ChatEndpoint, chatTextRoute } from '../chat-answer.ts';
import type { OpenStreams } from '../open-streams.ts';
import type { SseHeartbeat } from '../sse.ts';
import { registerTextRoute } from '../text-route.ts';
import { chatErrorResponse } from './chat-route.docs.ts';

/**
 * OpenAI's Responses protocol, for every text model: the request is translated into the canonical
 * chat request and served by the chat service (same routes, hold and settlement as chat completions,
 * recorded under the `openai` protocol). Responses are not stored (decision of 2026-11-25).
 */
export const RESPONSES_ENDPOINT: ChatEndpoint = {
  path: '/api/v1/responses',
  bodyLimit: LARGE_BODY_LIMIT,
  protocol: 'openai',
  errorFormat: 'openai',
  parse(body) {
    const { request, echo } = parseResponsesRequest(body);
    const model = request.model;
    return {
      request,
      answering: {
        renderResponse: (response) => renderResponsesObject(response, echo),
        streamEncoder: (id) => createResponsesStreamEncoder({ id, model, echo }),
      },
    };
  },
};

const NOT_STORED = 'Responses are not stored (every response is store: false), so none can be retrieved or deleted; keep the answer you were sent.';

const requestBodyDoc = {
  type: 'object',
  required: ['model', 'input'],
  additionalProperties: true,
  properties: {
    model: { type: 'string', description: 'A text model id (GET /api/v1/models)' },
    input: { description: 'A string, or input items: messages (input_text, input_image, input_file parts), function_call, function_call_output, reasoning' },
    instructions: { type: 'string' },
    stream: { type: 'boolean', default: false },
    tools: { type: 'array', items: { type: 'object' }, description: 'Function tools; hosted tools (web_search, file_search, …) are refused (400 naming the tool)' },
    tool_choice: {},
    text: { type: 'object', description: '`format`: text, json_object or json_schema' },
    max_output_tokens: { type: 'integer', minimum: 1, description: 'Capped by the service' },
    temperature: { type: 'number', minimum: 0, maximum: 2 },
    reasoning: { type: 'object', description: '`effort` is forwarded where the model has it; a route that cannot honour it refuses the request' },
    metadata: { type: 'object', description: 'Echoed in the answer' },
    store: { type: 'boolean', description: 'Accepted; nothing is stored, whatever it says' },
  },
  description:
    'Other fields of OpenAI\'s Responses request are accepted or refused with a 400 naming them: previous_response_id, conversation, prompt, background, item_reference inputs and hosted tools are refused (nothing is stored, no hosted tools).',
};

export function registerResponsesRoute(app: FastifyInstance, services: AppServices, heartbeat: SseHeartbeat, openStreams: OpenStreams): void {
  // The chat service's pipeline, as for chat completions; not on the chat lane (a plain Fastify route).
  registerTextRoute(app, chatTextRoute(services.chat, RESPONSES_ENDPOINT, heartbeat, openStreams, services.keyDoor), services.authenticator, {
        summary: 'Response (OpenAI Responses protocol), any text model; `stream: true` for typed server-sent events',
        description:
          'The OpenAI Responses protocol: point an OpenAI SDK (or the Vercel AI SDK\'s `openai()`, the OpenAI Agents SDK, LangChain with `useResponsesApi`) at `{base_url}/api/v1`. Translated into the chat request and billed as chat completions: the most the request can cost is reserved before the call and the exact cost settled from the provider\'s usage. Nothing is stored. Errors are OpenAI error objects.',
        tags: ['Text'],
        auth: 'apiKey',
        requestBody: requestBodyDoc,
        responses: {
          200: { description: 'A `response` object, or with `stream: true` a `text/event-stream` of typed events (response.created … response.completed)' },
          400: chatErrorResponse('openai', 'Unknown model, invalid or unsupported parameters (named in `param`), or the upstream refused a field (invalid_input)'),
          401: chatErrorResponse('openai', 'Missing or invalid API key'),
          402: chatErrorResponse('openai', 'The reservation does not fit the balance (insufficient_balance); nothing was sent upstream'),
          429: chatErrorResponse('openai', 'The upstream rate-limited every route (rate_limited); Retry-After kept'),
          502: chatErrorResponse('openai', 'Every route failed (upstream_error)'),
          503: chatErrorResponse('openai', 'The upstream is overloaded (service_unavailable)'),
        },
      });

  const notStored = {
    onRequest: requireApiKey(services.authenticator),
    config: {
      errorFormat: RESPONSES_ENDPOINT.errorFormat,
      docs: {
        summary: 'Not offered: responses are not stored',
        tags: ['Text'],
        auth: 'apiKey' as const,
        responses: { 404: chatErrorResponse('openai', 'Always: responses are not stored (not_found)') },
      },
    },
    handler: async (): Promise<never> => {
      throw new AppError('not_found', NOT_STORED);
    },
  };
  app.get(`${RESPONSES_ENDPOINT.path}/:id`, notStored);
  app.delete(`${RESPONSES_ENDPOINT.path}/:id`, notStored);
}
