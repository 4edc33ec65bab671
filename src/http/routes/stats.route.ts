import type { FastifyInstance } from 'fastify';
import type { AppServices } from '../app-services.ts';
import { MAX_PERIOD_DAYS } from '../../services/stats/stats-period.ts';
import { computeStatistics } from '../../services/stats/stats.service.ts';
import { authOf, requireApiKey } from '../auth.ts';
import { errorResponse } from '../schemas.ts';

const bucketSchema = {
  type: 'object',
  required: ['key', 'count', 'cost'],
  properties: {
    key: { type: 'string' },
    count: { type: 'integer', description: 'Generations (failed included) and chat requests' },
    cost: { type: 'number', description: 'USD cents, exact (up to 4 decimals), refunded failures excluded' },
  },
};

export const statisticsSchema = {
  type: 'object',
  required: ['from', 'to', 'totals', 'byDay', 'byModel', 'byType'],
  properties: {
    from: { type: 'string', format: 'date-time', description: 'First instant of the period (00:00 UTC of its first day)' },
    to: { type: 'string', format: 'date-time', description: 'Last instant of the period (23:59:59.999 UTC of its last day)' },
    totals: {
      type: 'object',
      required: ['balance', 'spent', 'spentAllTime', 'requests', 'succeeded', 'failed', 'inProgress', 'llmRequests', 'llmTokens'],
      properties: {
        balance: { type: 'integer', description: 'Current balance, whole USD cents rounded down' },
        spent: { type: 'number', description: 'USD cents spent in the period (media not refunded, plus chat)' },
        spentAllTime: { type: 'number', description: 'USD cents spent ever' },
        requests: { type: 'integer', description: 'Generations created in the period, failed ones included' },
        succeeded: { type: 'integer', description: 'Of those: finished (or finished and since expired)' },
        failed: { type: 'integer', description: 'Of those: failed (and refunded)' },
        inProgress: { type: 'integer', description: 'Of those: not_started or processing' },
        llmRequests: { type: 'integer', description: 'Chat requests in the period (both protocols)' },
        llmTokens: { type: 'integer', description: 'Their input plus output tokens' },
      },
    },
    byDay: { type: 'array', items: bucketSchema, description: 'Every UTC day of the period, ascending; key YYYY-MM-DD' },
    byModel: { type: 'array', items: bucketSchema, description: 'Models used in the period, most expensive first' },
    byApiKey: { type: 'array', items: bucketSchema, description: 'Generations, chat requests and storage charges per API key id (key `dashboard`: made from the dashboard), most expensive first; together the period\'s spend' },
    byType: { type: 'array', items: bucketSchema, description: 'IMAGE, VIDEO, MUSIC and TEXT (chat), always all four, plus STORAGE (paid storage plans) when the period holds a storage charge; most expensive first' },
  },
};

export const statsQuerySchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    range: { type: 'string', maxLength: 20, description: 'today (default), 7d, 30d or custom; each ends with today (UTC)' },
    from: { type: 'string', maxLength: 20, description: 'With range=custom: first day, YYYY-MM-DD (UTC), inclusive' },
    to: { type: 'string', maxLength: 20, description: `With range=custom: last day, YYYY-MM-DD (UTC), inclusive; at most ${MAX_PERIOD_DAYS} days after from` },
  },
};

export function registerStatsRoute(app: FastifyInstance, services: AppServices): void {
  app.get('/api/v1/stats', {
    onRequest: requireApiKey(services.authenticator),
    schema: {
      querystring: statsQuerySchema,
    },
    config: {
      docs: {
        summary: 'Usage and spend statistics over whole UTC days',
        description:
          'Amounts are USD cents computed exactly from micro-USD (up to 4 decimals); failed generations were refunded and count as 0. Spend = media tasks not refunded + chat requests + paid storage charges.',
        tags: ['Account'],
        auth: 'apiKey',
        responses: {
          200: { description: 'The statistics (a bare object)', schema: statisticsSchema },
          400: errorResponse('A bad, incomplete, reversed or too long range; error.param names the field'),
          401: errorResponse('Missing or invalid API key'),
        },
      },
    },
    handler: async (request) => computeStatistics(services.stats, authOf(request).userId, request.query as { range?: string; from?: string; to?: string }),
  });
}
