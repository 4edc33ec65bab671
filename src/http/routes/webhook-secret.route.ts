import type { FastifyInstance } from 'fastify';
import { kyselyWebhookPorts } from '../../adapters/db/stores/webhook-store.ts';
import type { Kysely } from 'kysely';
import type { Schema } from '../../adapters/db/schema.ts';
import type { ApiKeyAuthenticator } from '../../services/accounts/api-key-authenticator.ts';
import { listDeliveries, MAX_DELIVERY_LIST } from '../../services/webhooks/webhook-deliveries.ts';
import type { WebhookSecretService } from '../../services/webhooks/webhook-secret.service.ts';
import { authOf, requireApiKey } from '../auth.ts';
import { envelope, errorResponse } from '../schemas.ts';

export interface WebhookRoutesDeps {
  db: Kysely<Schema>;
  authenticator: ApiKeyAuthenticator;
  webhookSecrets: WebhookSecretService;
}

const secretSchema = {
  type: 'object',
  required: ['secret'],
  properties: {
    secret: { type: 'string', description: 'whsec_ + base64 key: verify the webhook-signature header with it (Standard Webhooks)' },
    previousSecretValidUntil: {
      type: 'string',
      format: 'date-time',
      description: 'After a rotation: until then deliveries also carry a signature by the replaced secret',
    },
  },
};

const attemptSchema = {
  type: 'object',
  required: ['attemptNo', 'startedAt', 'durationMs', 'statusCode', 'error'],
  properties: {
    attemptNo: { type: 'integer' },
    startedAt: { type: 'string', format: 'date-time' },
    durationMs: { type: 'integer' },
    statusCode: { type: ['integer', 'null'], description: 'The receiver’s status; null when no response came' },
    error: { type: ['string', 'null'] },
  },
};

export const deliverySchema = {
  type: 'object',
  required: ['id', 'taskId', 'eventType', 'url', 'status', 'attemptCount', 'nextAttemptAt', 'lastStatusCode', 'lastError', 'createdAt', 'deliveredAt', 'attempts'],
  properties: {
    id: { type: 'string', description: 'Also the webhook-id header of every attempt' },
    taskId: { type: ['string', 'null'] },
    eventType: { type: 'string' },
    url: { type: 'string' },
    status: { type: 'string', enum: ['pending', 'delivered', 'failed'] },
    attemptCount: { type: 'integer' },
    nextAttemptAt: { type: ['string', 'null'], format: 'date-time' },
    lastStatusCode: { type: ['integer', 'null'] },
    lastError: { type: ['string', 'null'] },
    createdAt: { type: 'string', format: 'date-time' },
    deliveredAt: { type: ['string', 'null'], format: 'date-time' },
    attempts: { type: 'array', items: attemptSchema },
  },
};

const deliveriesQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    taskId: { type: 'string', minLength: 1, maxLength: 200, description: 'Only the deliveries of this task' },
    limit: { type: 'string', pattern: '^[0-9]{1,3}$', description: `At most this many, newest first (default 50, at most ${MAX_DELIVERY_LIST})` },
  },
};

/**
 * The signing secret of completion webhooks (read, rotate) and the record of deliveries, for the
 * dashboard and for a user debugging a receiver.
 */
export function registerWebhookSecretRoutes(app: FastifyInstance, deps: WebhookRoutesDeps): void {
  const auth = requireApiKey(deps.authenticator);
  const webhookPorts = kyselyWebhookPorts(deps.db);

  app.get('/api/v1/webhooks/secret', {
    onRequest: auth,
    config: {
      docs: {
        summary: 'Your webhook signing secret',
        description: 'Completion webhooks are signed per Standard Webhooks: headers webhook-id, webhook-timestamp, webhook-signature (v1, HMAC-SHA256).',
        tags: ['Webhooks'],
        auth: 'apiKey',
        responses: { 200: { description: 'The current secret', schema: envelope(secretSchema) } },
      },
    },
    handler: async (request) => ({ code: 200, data: await deps.webhookSecrets.get(authOf(request).userId) }),
  });

  app.post('/api/v1/webhooks/secret/rotate', {
    onRequest: auth,
    config: {
      docs: {
        summary: 'Rotate your webhook signing secret',
        description: 'The replaced secret keeps signing beside the new one for 24 hours, so a receiver can switch without missing a delivery.',
        tags: ['Webhooks'],
        auth: 'apiKey',
        responses: { 200: { description: 'The new secret', schema: envelope(secretSchema) }, 409: errorResponse('Rotated concurrently; try again') },
      },
    },
    handler: async (request) => ({ code: 200, data: await deps.webhookSecrets.rotate(authOf(request).userId) }),
  });

  app.get('/api/v1/webhooks/deliveries', {
    onRequest: auth,
    schema: { querystring: deliveriesQuery },
    config: {
      docs: {
        summary: 'Your webhook deliveries with every attempt',
        tags: ['Webhooks'],
        auth: 'apiKey',
        responses: { 200: { description: 'Newest first', schema: envelope({ type: 'array', items: deliverySchema }) }, 400: errorResponse('Invalid query') },
      },
    },
    handler: async (request) => {
      const query = request.query as { taskId?: string; limit?: string };
      const limit = query.limit === undefined ? undefined : Math.min(Math.max(1, Number(query.limit)), MAX_DELIVERY_LIST);
      const options = { ...(query.taskId !== undefined ? { taskId: query.taskId } : {}), ...(limit !== undefined ? { limit } : {}) };
      return { code: 200, data: await listDeliveries(webhookPorts, authOf(request).userId, options) };
    },
  });
}
