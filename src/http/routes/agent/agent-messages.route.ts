import type { FastifyInstance } from 'fastify';
import { AppError } from '../../../domain/errors.ts';
import type { AppServices } from '../../app-services.ts';
import { parseSequence } from '../../../services/agent/runs/run-views.service.ts';
import { streamAgentEvents } from '../../agent-event-stream.ts';
import { requireApiKey } from '../../auth.ts';
import { envelope, errorResponse, idParam } from '../../schemas.ts';
import type { OpenStreams } from '../../open-streams.ts';
import type { SseHeartbeat } from '../../sse.ts';
import { agentCaller } from './agent-caller.ts';
import { messagePage } from './agent-run-views.schemas.ts';
import { eventSchema, messageAccepted, messageBody } from './agent-schemas.ts';

const conversationParams = idParam('conversationId', 'Conversation id (conv_…)');

export function registerAgentMessageRoutes(app: FastifyInstance, services: AppServices, heartbeat: SseHeartbeat, openStreams: OpenStreams): void {
  const auth = requireApiKey(services.authenticator);

  app.post('/api/v1/agent/conversations/:conversationId/messages', {
    onRequest: auth,
    schema: { params: conversationParams, body: messageBody },
    config: {
      docs: {
        summary: 'Send a task, a follow-up, steering, or a clarification reply',
        description:
          'Without deliveryMode on an idle conversation: a new run (`running`). While a run is active: `followup` queues a run (at most 20, run in order), `steer` adds text to the active automatic run when its canSteer is true; without deliveryMode, 409 conversation_busy. A reply names replyToRunId and the pending questionId and keeps that run\'s limit. clientMessageId makes retries safe.',
        tags: ['Agent'],
        auth: 'apiKey',
        responses: {
          200: { description: 'Accepted', schema: envelope(messageAccepted) },
          400: errorResponse('Invalid body (invalid_input)'),
          403: errorResponse('New runs are disabled on this storefront (agent_runs_disabled)'),
          404: errorResponse('Conversation not found'),
          409: errorResponse('conversation_busy, followup_queue_full, steer_not_allowed, question_not_pending, idempotency_key_reused'),
        },
      },
    },
    handler: async (request) => ({
      code: 200,
      data: await services.agent.messages.accept(agentCaller(request, services), (request.params as { conversationId: string }).conversationId, request.body),
    }),
  });

  app.get('/api/v1/agent/conversations/:conversationId/messages', {
    onRequest: auth,
    schema: {
      params: conversationParams,
      querystring: {
        type: 'object',
        additionalProperties: false,
        properties: { before: { type: 'string', maxLength: 200, description: 'nextBefore of the previous page' }, limit: { type: 'string', pattern: '^[0-9]{1,3}$' } },
      },
    },
    config: {
      docs: {
        summary: 'The messages of a conversation, oldest first (pages go back in time)',
        tags: ['Agent'],
        auth: 'apiKey',
        responses: { 200: { description: 'Messages', schema: envelope(messagePage) }, 404: errorResponse('Conversation not found') },
      },
    },
    handler: async (request) => ({
      code: 200,
      data: await services.agent.views.messages(agentCaller(request, services), (request.params as { conversationId: string }).conversationId, request.query as { before?: string; limit?: string }),
    }),
  });

  app.get('/api/v1/agent/conversations/:conversationId/event-history', {
    onRequest: auth,
    schema: {
      params: conversationParams,
      querystring: {
        type: 'object',
        additionalProperties: false,
        properties: {
          afterSequence: { type: 'string', pattern: '^[0-9]{1,15}$', description: 'Events strictly after this sequence (0: from the start)' },
          limit: { type: 'string', pattern: '^[0-9]{1,3}$', description: '1 to 500 (500)' },
        },
      },
    },
    config: {
      docs: {
        summary: 'JSON replay of a conversation\'s events',
        description: '`resync: true` when events after the cursor are past their retention.',
        tags: ['Agent'],
        auth: 'apiKey',
        responses: {
          200: {
            description: 'Events in sequence order',
            schema: envelope({
              type: 'object',
              properties: { events: { type: 'array', items: eventSchema }, lastSequence: { type: 'integer' }, hasMore: { type: 'boolean' }, resync: { type: 'boolean' } },
            }),
          },
          404: errorResponse('Conversation not found'),
        },
      },
    },
    handler: async (request) => ({
      code: 200,
      data: await services.agent.views.history(agentCaller(request, services), (request.params as { conversationId: string }).conversationId, request.query as { afterSequence?: string; limit?: string }),
    }),
  });

  app.get('/api/v1/agent/conversations/:conversationId/events', {
    onRequest: auth,
    schema: {
      params: conversationParams,
      querystring: { type: 'object', additionalProperties: false, properties: { afterSequence: { type: 'string', pattern: '^[0-9]{1,15}$' } } },
      headers: { type: 'object', properties: { 'last-event-id': { type: 'string', description: 'The last sequence received: the stream resumes strictly after it' } } },
    },
    config: {
      docs: {
        summary: 'Live events of a conversation (server-sent events)',
        description:
          'Each event: `id:` its sequence, `event:` its type, `data:` the event JSON. Reconnect with Last-Event-ID. A `: ping` comment after at most 15 s of silence. `event: resync` when the cursor is older than the events kept; `event: closed` when the conversation is deleted.',
        tags: ['Agent'],
        auth: 'apiKey',
        responses: {
          200: { description: 'An event stream', contentType: 'text/event-stream', schema: eventSchema },
          404: errorResponse('Conversation not found'),
          429: errorResponse('Too many event streams open for this user (rate_limited): close one first'),
        },
      },
    },
    handler: async (request, reply) => {
      const caller = agentCaller(request, services);
      const conversation = await services.agent.conversations.find(caller, (request.params as { conversationId: string }).conversationId);
      const header = request.headers['last-event-id'];
      if (Array.isArray(header)) throw new AppError('invalid_input', 'send one Last-Event-ID header', { param: 'Last-Event-ID' });
      const after = header !== undefined && header !== '' ? parseSequence(header.trim(), 'Last-Event-ID') : parseSequence((request.query as { afterSequence?: string }).afterSequence, 'afterSequence');
      // Counted before anything is written: one too many is a 429 with the standard body.
      const lease = openStreams.open({ userId: caller.userId, keyId: request.auth?.keyId, sessionId: request.dashboardSession?.sessionId }, { counted: true });
      reply.hijack();
      await streamAgentEvents({
        res: reply.raw,
        db: services.database.db,
        hub: services.agent.hub,
        heartbeat,
        lease,
        conversationId: conversation.id,
        afterSequence: after,
        headers: { 'x-request-id': String(request.id) },
      });
    },
  });
}
