import type { FastifyInstance } from 'fastify';
import type { AppServices } from '../../app-services.ts';
import { requireApiKey } from '../../auth.ts';
import { envelope, errorResponse, idParam } from '../../schemas.ts';
import { agentCaller } from './agent-caller.ts';
import { webhookBody, webhookDeliveryView, webhookQueuedView, webhookView } from './agent-schemas.ts';

export function registerAgentWebhookRoutes(app: FastifyInstance, services: AppServices): void {
  const auth = requireApiKey(services.authenticator);

  app.post('/api/v1/agent/webhooks', {
    onRequest: auth,
    schema: { body: webhookBody },
    config: {
      docs: {
        summary: 'Add a lifecycle webhook destination (the signing secret is shown once)',
        description:
          'Deliveries follow Standard Webhooks: headers webhook-id (the event id, the same on every retry), webhook-timestamp and webhook-signature (v1, HMAC-SHA256 of id.timestamp.body). Body {type, timestamp, data: the event}. Retries: at once, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h; 410 Gone or five days of failures disable the destination. Private addresses are refused, also when a name resolves to one at connect time.',
        tags: ['Agent'],
        auth: 'apiKey',
        responses: {
          200: { description: 'The destination with its secret', schema: envelope({ ...webhookView, properties: { ...(webhookView.properties as object), secret: { type: 'string' } } }) },
          400: errorResponse('Invalid URL, event type or scope'),
        },
      },
    },
    handler: async (request) => ({ code: 200, data: await services.agent.webhooks.create(agentCaller(request, services), request.body) }),
  });

  app.get('/api/v1/agent/webhooks', {
    onRequest: auth,
    config: {
      docs: {
        summary: 'Your lifecycle webhook destinations (without secrets)',
        tags: ['Agent'],
        auth: 'apiKey',
        responses: { 200: { description: 'Destinations', schema: envelope({ type: 'array', items: webhookView }) } },
      },
    },
    handler: async (request) => ({ code: 200, data: await services.agent.webhooks.list(agentCaller(request, services)) }),
  });

  app.delete('/api/v1/agent/webhooks/:webhookId', {
    onRequest: auth,
    schema: { params: idParam('webhookId', 'Destination id (awh_…)') },
    config: {
      docs: { summary: 'Revoke a lifecycle webhook destination', tags: ['Agent'], auth: 'apiKey', responses: { 200: { description: 'Revoked' }, 404: errorResponse('Not found') } },
    },
    handler: async (request) => {
      const webhookId = (request.params as { webhookId: string }).webhookId;
      await services.agent.webhooks.revoke(agentCaller(request, services), webhookId);
      return { code: 200, data: { webhookId, revoked: true } };
    },
  });

  const webhookParams = idParam('webhookId', 'Destination id (awh_…)');
  const refusals = {
    404: errorResponse('Not your destination (or no such one)'),
    409: errorResponse('`webhook_revoked` or `webhook_disabled`: the destination sends nothing more'),
  };

  app.post('/api/v1/agent/webhooks/:webhookId/test', {
    onRequest: auth,
    schema: { params: webhookParams },
    config: {
      docs: {
        summary: 'Send a signed webhook.test event to a destination',
        description:
          'Queues a delivery of a `webhook.test` event (whatever the destination\'s eventTypes), signed, retried and address-checked like every event: body {type: "webhook.test", timestamp, data: {id, type, webhookId, createdAt, data: {message}}}. Rate-limited per user (limits.webhookTestsPerUser, 30 per 10 minutes by default), an allowance shared with redeliveries.',
        tags: ['Agent'],
        auth: 'apiKey',
        responses: {
          202: { description: 'Queued', schema: envelope(webhookQueuedView) },
          ...refusals,
          429: errorResponse('Too many test events and redeliveries; Retry-After says when to try again'),
        },
      },
    },
    handler: async (request, reply) => {
      const webhookId = (request.params as { webhookId: string }).webhookId;
      const data = await services.agent.webhookDeliveries.sendTest(agentCaller(request, services), webhookId);
      reply.code(202);
      return { code: 202, data };
    },
  });

  app.get('/api/v1/agent/webhooks/:webhookId/deliveries', {
    onRequest: auth,
    schema: {
      params: webhookParams,
      querystring: {
        type: 'object',
        additionalProperties: false,
        properties: {
          cursor: { type: 'string', maxLength: 200, description: 'nextCursor of the previous page' },
          limit: { type: 'string', pattern: '^[0-9]{1,3}$', description: '1 to 100 (20)' },
        },
      },
    },
    config: {
      docs: {
        summary: 'A destination\'s recent deliveries, newest first',
        tags: ['Agent'],
        auth: 'apiKey',
        responses: {
          200: { description: 'A page', schema: envelope({ type: 'object', properties: { items: { type: 'array', items: webhookDeliveryView }, nextCursor: { type: ['string', 'null'] } } }) },
          400: errorResponse('Bad limit or cursor'),
          404: refusals[404],
        },
      },
    },
    handler: async (request) => {
      const webhookId = (request.params as { webhookId: string }).webhookId;
      return { code: 200, data: await services.agent.webhookDeliveries.list(agentCaller(request, services), webhookId, request.query as { cursor?: string; limit?: string }) };
    },
  });

  app.post('/api/v1/agent/webhooks/:webhookId/deliveries/:deliveryId/redeliver', {
    onRequest: auth,
    schema: {
      params: { type: 'object', required: ['webhookId', 'deliveryId'], properties: { webhookId: { type: 'string', minLength: 1, maxLength: 200 }, deliveryId: { type: 'string', minLength: 1, maxLength: 200 } } },
    },
    config: {
      docs: {
        summary: 'Send a delivery\'s event again, under the same event id',
        description:
          'Queues a new delivery of the same body with the same webhook-id (receivers deduplicate). When the event is already pending for this destination nothing is added (`queued: false`): a delivery waiting for a retry is brought forward to now. Every redelivery counts towards the test-event allowance (limits.webhookTestsPerUser).',
        tags: ['Agent'],
        auth: 'apiKey',
        responses: {
          202: { description: 'Queued, or already pending', schema: envelope(webhookQueuedView) },
          ...refusals,
          429: errorResponse('Too many test events and redeliveries; Retry-After says when to try again'),
        },
      },
    },
    handler: async (request, reply) => {
      const { webhookId, deliveryId } = request.params as { webhookId: string; deliveryId: string };
      const data = await services.agent.webhookDeliveries.redeliver(agentCaller(request, services), webhookId, deliveryId);
      reply.code(202);
      return { code: 202, data };
    },
  });
}
