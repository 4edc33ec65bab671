import type { FastifyInstance } from 'fastify';
import type { AppServices } from '../../../services/app-services.ts';
import { requireApiKey } from '../../auth.ts';
import { envelope, errorResponse, idParam } from '../../schemas.ts';
import { agentCaller } from './agent-caller.ts';
import { webhookBody, webhookView } from './agent-schemas.ts';

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
}
