import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { AppServices } from '../app-services.ts';
import { MAX_PERIOD_DAYS } from '../../services/stats/stats-period.ts';
import { MAX_EXPORT_ROWS, USAGE_EXPORT_KINDS, usageExport } from '../../services/stats/usage-export.ts';
import { authOf, requireApiKey } from '../auth.ts';
import { errorResponse } from '../schemas.ts';

export const usageExportQuerySchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    type: { type: 'string', maxLength: 20, description: `${USAGE_EXPORT_KINDS.join(' (default) or ')}` },
    from: { type: 'string', maxLength: 20, description: 'First day, YYYY-MM-DD (UTC), inclusive; without from and to: the last 30 days' },
    to: { type: 'string', maxLength: 20, description: `Last day, YYYY-MM-DD (UTC), inclusive; at most ${MAX_PERIOD_DAYS} days after from` },
  },
};

export interface UsageExportQuery {
  type?: string;
  from?: string;
  to?: string;
}

/** Streams an account's export (a person's, or an organization's for its owners and admins). */
export function sendUsageExport(reply: FastifyReply, services: AppServices, accountId: string, query: UsageExportQuery): FastifyReply {
  const exported = usageExport(services.stats, accountId, query);
  reply
    .header('content-type', 'text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="${exported.filename}"`)
    .header('cache-control', 'no-store');
  return reply.send(Readable.from(exported.chunks));
}

/** The caller's ledger or generations for a range of days, as a CSV download. */
export function registerUsageExportRoute(app: FastifyInstance, services: AppServices): void {
  app.get('/api/v1/usage/export', {
    onRequest: requireApiKey(services.authenticator),
    schema: {
      querystring: usageExportQuerySchema,
    },
    config: {
      docs: {
        summary: 'Export your ledger or your generations for a range of days as CSV',
        description: `Newest first. Ledger: time, entry_id, kind, amount_usd, balance_after_usd, reference, note. Generations: created_time, generation_id, model, type, status, cost_usd, refunded, api_key, finished_time, error, prompt (first 2,000 characters). Amounts are exact USD; text you wrote that starts like a spreadsheet formula gets a leading apostrophe. At most ${MAX_EXPORT_ROWS.toLocaleString('en')} rows (then a last line says where it was cut).`,
        tags: ['Statistics'],
        auth: 'apiKey',
        responses: {
          200: { description: 'A `text/csv` attachment' },
          400: errorResponse('An unknown type, a date that is not YYYY-MM-DD, to before from, or more than 366 days'),
          401: errorResponse('Missing or invalid API key'),
        },
      },
    },
    handler: async (request, reply) => {
      return sendUsageExport(reply, services, authOf(request).userId, request.query as UsageExportQuery);
    },
  });
}
