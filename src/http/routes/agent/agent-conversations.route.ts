import type { FastifyInstance } from 'fastify';
import type { AppServices } from '../../app-services.ts';
import { requireApiKey } from '../../auth.ts';
import { envelope, errorResponse, idParam } from '../../schemas.ts';
import { agentCaller } from './agent-caller.ts';
import { conversationPage, conversationView } from './agent-run-views.schemas.ts';
import { createConversationBody, renameConversationBody } from './agent-schemas.ts';

const conversationParams = idParam('conversationId', 'Conversation id (conv_…)');

export function registerAgentConversationRoutes(app: FastifyInstance, services: AppServices): void {
  const auth = requireApiKey(services.authenticator);
  const conversations = services.agent.conversations;

  app.post('/api/v1/agent/conversations', {
    onRequest: auth,
    schema: { body: createConversationBody },
    config: {
      docs: {
        summary: 'Create a conversation',
        tags: ['Agent'],
        auth: 'apiKey',
        responses: { 200: { description: 'The conversation', schema: envelope(conversationView) }, 400: errorResponse('A field is invalid') },
      },
    },
    handler: async (request) => ({ code: 200, data: await conversations.create(agentCaller(request, services), request.body) }),
  });

  app.get('/api/v1/agent/conversations', {
    onRequest: auth,
    schema: {
      querystring: {
        type: 'object',
        additionalProperties: false,
        properties: {
          q: { type: 'string', maxLength: 500, description: 'Full-text search in titles and message texts (every word, as a prefix)' },
          cursor: { type: 'string', maxLength: 200, description: 'nextCursor of the previous page' },
          limit: { type: 'string', pattern: '^[0-9]{1,3}$', description: '1 to 100 (20)' },
          projectId: { type: 'string', maxLength: 200, description: 'Only the conversations of this project' },
        },
      },
    },
    config: {
      docs: {
        summary: 'Your conversations, latest activity first',
        tags: ['Agent'],
        auth: 'apiKey',
        responses: {
          200: { description: 'A page', schema: envelope(conversationPage) },
        },
      },
    },
    handler: async (request) => ({ code: 200, data: await conversations.list(agentCaller(request, services), request.query as { q?: string; cursor?: string; limit?: string; projectId?: string }) }),
  });

  app.get('/api/v1/agent/conversations/:conversationId', {
    onRequest: auth,
    schema: { params: conversationParams },
    config: {
      docs: {
        summary: 'One conversation',
        tags: ['Agent'],
        auth: 'apiKey',
        responses: { 200: { description: 'The conversation', schema: envelope(conversationView) }, 404: errorResponse('Not found (or another user\'s)') },
      },
    },
    handler: async (request) => ({ code: 200, data: await conversations.get(agentCaller(request, services), (request.params as { conversationId: string }).conversationId) }),
  });

  app.patch('/api/v1/agent/conversations/:conversationId', {
    onRequest: auth,
    schema: { params: conversationParams, body: renameConversationBody },
    config: {
      docs: {
        summary: 'Rename a conversation (optimistic versioning)',
        tags: ['Agent'],
        auth: 'apiKey',
        responses: {
          200: { description: 'Renamed', schema: envelope(conversationView) },
          404: errorResponse('Not found'),
          409: errorResponse('expectedVersion is stale (version_conflict)'),
        },
      },
    },
    handler: async (request) => ({
      code: 200,
      data: await conversations.rename(agentCaller(request, services), (request.params as { conversationId: string }).conversationId, request.body),
    }),
  });

  app.delete('/api/v1/agent/conversations/:conversationId', {
    onRequest: auth,
    schema: { params: conversationParams },
    config: {
      docs: {
        summary: 'Delete a conversation; its active runs are stopped',
        description: 'A run whose provider operation was already accepted stops after it (that operation may still be charged).',
        tags: ['Agent'],
        auth: 'apiKey',
        responses: { 200: { description: 'Deleted' }, 404: errorResponse('Not found') },
      },
    },
    handler: async (request) => ({ code: 200, data: await conversations.delete(agentCaller(request, services), (request.params as { conversationId: string }).conversationId) }),
  });
}
