/**
 * The operator's margins (issue 32, item 6): GET /admin/v1/reports/routes answers, per UTC day, model
 * and route entry, revenue, upstream cost, margin, failover rate and error rate, and flags an entry
 * whose cost is above the price now. Money is integer micro-USD as text, as the admin ledger's is.
 */
import type { FastifyInstance } from 'fastify';
import type { AppServices } from '../../app-services.ts';
import { requireAdmin } from '../../auth.ts';
import { errorResponse } from '../../schemas.ts';
import { dayKey } from '../../../services/stats/stats-period.ts';
import { entryAtLoss } from './upstream-presenters.ts';

const micro = { type: 'string', pattern: '^-?[0-9]+$', description: 'Integer micro-USD' };
const counts = {
  requests: { type: 'integer' },
  failed: { type: 'integer', description: 'Ended in an upstream error: chat `failed` or `cut`, media tasks `failed` (refunded)' },
  failovers: { type: 'integer', description: 'Needed more than one route entry' },
  revenueMicroUsd: { ...micro, description: 'Charged to clients (media: less refunds), integer micro-USD' },
  upstreamCostMicroUsd: { ...micro, description: "What the upstream charged us, at the entry's cost when each request settled" },
  marginMicroUsd: { type: ['string', 'null'], pattern: '^-?[0-9]+$', description: 'Revenue less upstream cost; null while some request of the row has no cost (`uncosted`)' },
  uncosted: { type: 'integer', description: 'Requests that reached an upstream whose entry had no cost set' },
};
const rowSchema = {
  type: 'object',
  required: ['date', 'model', 'kind', 'provider', 'upstreamModel', 'atLoss', 'failoverRate', 'errorRate', ...Object.keys(counts)],
  properties: {
    date: { type: 'string', format: 'date', description: 'UTC day the requests were made' },
    model: { type: 'string' },
    kind: { type: 'string', enum: ['chat', 'media'] },
    provider: { type: ['string', 'null'], description: 'The entry that served, or the last one tried; null: no upstream was reached' },
    upstreamModel: { type: ['string', 'null'] },
    ...counts,
    failoverRate: { type: 'number', minimum: 0, maximum: 1 },
    errorRate: { type: 'number', minimum: 0, maximum: 1 },
    atLoss: { type: 'boolean', description: "The entry is on the model's route now with a cost above the price: no failover moves requests onto it unless it allows a loss" },
  },
};

const money = (value: number | null): string | null => (value === null ? null : String(value));

export function registerAdminRouteReportRoutes(app: FastifyInstance, services: AppServices): void {
  app.get('/admin/v1/reports/routes', {
    onRequest: requireAdmin(services),
    schema: {
      querystring: {
        type: 'object',
        additionalProperties: false,
        properties: {
          range: { type: 'string', enum: ['today', '7d', '30d', 'custom'], description: 'Default 7d' },
          from: { type: 'string', maxLength: 10, description: 'With range=custom: the first UTC date, YYYY-MM-DD' },
          to: { type: 'string', maxLength: 10, description: 'With range=custom: the last UTC date (at most 366 days)' },
          model: { type: 'string', minLength: 1, maxLength: 200 },
        },
      },
    },
    config: {
      docs: {
        summary: 'Revenue, upstream cost, margin, failover rate and error rate per UTC day, model and route entry',
        tags: ['Admin upstreams'],
        auth: 'admin',
        responses: {
          200: {
            description: 'The report, newest day first',
            schema: {
              type: 'object',
              required: ['from', 'to', 'data', 'totals'],
              properties: {
                from: { type: 'string', format: 'date' },
                to: { type: 'string', format: 'date' },
                data: { type: 'array', items: rowSchema },
                totals: { type: 'object', required: Object.keys(counts), properties: counts },
              },
            },
          },
          400: errorResponse('A bad range'),
          503: errorResponse('The report took longer than its deadline'),
        },
      },
    },
    handler: async (request) => {
      const query = request.query as { range?: string; from?: string; to?: string; model?: string };
      const report = await services.routeReport.report(query);
      const present = <T extends { revenueMicro: number; upstreamCostMicro: number; marginMicro: number | null }>({ revenueMicro, upstreamCostMicro, marginMicro, ...rest }: T) => ({
        ...rest,
        revenueMicroUsd: String(revenueMicro),
        upstreamCostMicroUsd: String(upstreamCostMicro),
        marginMicroUsd: money(marginMicro),
      });
      return {
        from: dayKey(report.period.firstDay),
        to: dayKey(report.period.lastDay),
        data: report.rows.map((row) => {
          const entry = row.provider === null ? undefined : services.upstreams.targets(row.model)?.find((t) => t.provider === row.provider && t.model === row.upstreamModel);
          return { ...present(row), atLoss: entry !== undefined && entryAtLoss(services.catalog, row.model, entry) };
        }),
        totals: present(report.totals),
      };
    },
  });
}
