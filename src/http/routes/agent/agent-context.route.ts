import type { FastifyInstance } from 'fastify';
import type { AppServices } from '../../app-services.ts';
import { requireApiKey } from '../../auth.ts';
import { envelope, errorResponse, idParam } from '../../schemas.ts';
import { agentCaller } from './agent-caller.ts';
import { contextReferencesBody, contextReferencesView } from './agent-schemas.ts';

const conversationParams = idParam('conversationId', 'Conversation id (conv_…)');

/** Context references (rule 13): which other conversations this one's runs may search. */
export function registerAgentContextRoutes(app: FastifyInstance, services: AppServices): void {
  const auth = requireApiKey(services.authenticator);
  const conversationId = (request: { params: unknown }) => (request.params as { conversationId: string }).conversationId;

  app.get('/api/v1/agent/conversations/:conversationId/context-references', {
    onRequest: auth,
    schema: { params: conversationParams },
    config: {
      docs: {
        summary: 'The conversations this one\'s runs may search, with their version',
        tags: ['Agent'],
        auth: 'apiKey',
        responses: { 200: { description: 'The references', schema: envelope(contextReferencesView) }, 404: errorResponse('Not found') },
      },
    },
    handler: async (request) => ({ code: 200, data: await services.agent.context.get(agentCaller(request, services), conversationId(request)) }),
  });

  app.put('/api/v1/agent/conversations/:conversationId/context-references', {
    onRequest: auth,
    schema: { params: conversationParams, body: contextReferencesBody },
    config: {
      docs: {
        summary: 'Replace the context references (optimistic versioning; an empty list clears access)',
        description:
          'Each reference is {targetType: conversation, targetId}: a conversation id, or a URL of this storefront (/agent/c/{id} or /api/v1/agent/conversations/{id} on the host of this request), read without any HTTP request. Only your own conversations on this storefront; their own references are not followed. A run captures the references and the moment it starts: later messages never enter its input.',
        tags: ['Agent'],
        auth: 'apiKey',
        responses: {
          200: { description: 'Saved', schema: envelope(contextReferencesView) },
          400: errorResponse('A reference that is not one of your conversations on this storefront'),
          404: errorResponse('Not found'),
          409: errorResponse('expectedVersion is stale (version_conflict)'),
        },
      },
    },
    handler: async (request) => ({
      code: 200,
      data: await services.agent.context.put(agentCaller(request, services), conversationId(request), request.body, request.headers.host),
    }),
  });
}
