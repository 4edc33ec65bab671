import type { FastifyInstance } from 'fastify';
import type { AppServices } from '../app-services.ts';
import { type GenerationListQuery, listGenerations } from '../../services/stats/generation-list.service.ts';
import { authOf, requireApiKey } from '../auth.ts';
import { envelope, errorResponse } from '../schemas.ts';

const itemSchema = {
  type: 'object',
  required: ['taskId', 'model', 'type', 'status', 'costCents', 'costMicroUsd', 'refunded', 'prompt', 'title', 'files', 'errorMessage', 'createdTime', 'finishedTime'],
  properties: {
    taskId: { type: 'string' },
    model: { type: 'string' },
    type: { enum: ['IMAGE', 'VIDEO', 'MUSIC'] },
    status: { enum: ['not_started', 'processing', 'finished', 'failed', 'expired'] },
    costCents: { type: 'number', description: 'What the create debited, USD cents (exact)' },
    costMicroUsd: { type: 'string', description: 'The same in micro-USD, a decimal integer string' },
    refunded: { type: 'boolean', description: 'A failed generation was refunded in full' },
    prompt: { type: ['string', 'null'], description: 'At most 300 characters' },
    title: { type: ['string', 'null'], description: "A music generation's song titles (its tracks', distinct, joined by ' / '); null for images and videos" },
    files: {
      type: 'array',
      items: { type: 'object', required: ['fileUrl', 'fileType'], properties: { fileUrl: { type: 'string' }, fileType: { enum: ['image', 'video', 'music'] } } },
    },
    errorMessage: { type: ['string', 'null'] },
    createdTime: { type: 'string', format: 'date-time' },
    finishedTime: { type: ['string', 'null'], format: 'date-time' },
  },
};

export function registerGenerationsListRoute(app: FastifyInstance, services: AppServices): void {
  app.get('/api/v1/generations', {
    onRequest: requireApiKey(services.authenticator),
    schema: {
      querystring: {
        type: 'object',
        additionalProperties: false,
        properties: {
          status: { type: 'string', maxLength: 100, description: 'Comma-separated statuses (not_started,processing,finished,failed,expired)' },
          model: { type: 'string', maxLength: 100, description: 'A media model id' },
          type: { type: 'string', maxLength: 10, description: 'IMAGE, VIDEO or MUSIC' },
          from: { type: 'string', maxLength: 40, description: 'Created on or after: a date (UTC day) or an ISO 8601 date-time' },
          to: { type: 'string', maxLength: 40, description: 'Created on or before: a date (the whole UTC day) or an ISO 8601 date-time' },
          limit: { type: 'string', maxLength: 3, description: '1 to 100, default 20' },
          cursor: { type: 'string', maxLength: 300, description: 'nextCursor of the previous page' },
        },
      },
    },
    config: {
      docs: {
        summary: 'Your generations, newest first, filtered and paginated',
        tags: ['Generation'],
        auth: 'apiKey',
        responses: {
          200: {
            description: 'A page; files as GET /task/status shows them',
            schema: envelope({ type: 'object', required: ['items', 'nextCursor'], properties: { items: { type: 'array', items: itemSchema }, nextCursor: { type: ['string', 'null'] } } }),
          },
          400: errorResponse('A bad filter, limit or cursor (error.param names it)'),
          401: errorResponse('Missing or invalid API key'),
        },
      },
    },
    handler: async (request) => {
      const page = await listGenerations(services.stats, services.blobs, authOf(request).userId, request.query as GenerationListQuery);
      return { code: 200, data: page };
    },
  });
}
