import type { FastifyInstance } from 'fastify';
import { computeStatistics } from '../../../services/stats/stats.service.ts';
import type { AppServices } from '../../app-services.ts';
import { authOf, requireSession } from '../../auth.ts';
import { errorResponse, idParam } from '../../schemas.ts';
import { statisticsSchema, statsQuerySchema } from '../stats.route.ts';
import { type UsageExportQuery, sendUsageExport, usageExportQuerySchema } from '../usage-export.route.ts';

/**
 * An organization's statistics and CSV export (issue 33, item 3), for its owners and admins: the same
 * figures as a person's /api/v1/stats and /api/v1/usage/export, over the organization's account; its
 * byApiKey buckets are its members' keys.
 */
export function registerOrganizationUsageRoutes(app: FastifyInstance, services: AppServices): void {
  const session = requireSession();
  const { organizations } = services;

  app.get('/api/v1/organizations/:orgId/stats', {
    onRequest: session,
    schema: { params: idParam('orgId', 'Organization id'), querystring: statsQuerySchema },
    config: {
      docs: {
        summary: "The organization's usage and spend statistics (an owner or admin), as /api/v1/stats",
        tags: ['Organizations'],
        auth: 'none',
        responses: { 200: { description: 'The statistics (a bare object)', schema: statisticsSchema }, 400: errorResponse('A bad range'), 403: errorResponse('A member'), 404: errorResponse('Not an organization you belong to') },
      },
    },
    handler: async (request) => {
      const { orgId } = request.params as { orgId: string };
      await organizations.seat(authOf(request).userId, orgId, 'read_all');
      return computeStatistics(services.stats, orgId, request.query as { range?: string; from?: string; to?: string });
    },
  });

  app.get('/api/v1/organizations/:orgId/usage/export', {
    onRequest: session,
    schema: { params: idParam('orgId', 'Organization id'), querystring: usageExportQuerySchema },
    config: {
      docs: {
        summary: "Export the organization's ledger or generations as CSV (an owner or admin), as /api/v1/usage/export",
        tags: ['Organizations'],
        auth: 'none',
        responses: { 200: { description: 'A `text/csv` attachment' }, 400: errorResponse('A bad type or range'), 403: errorResponse('A member'), 404: errorResponse('Not an organization you belong to') },
      },
    },
    handler: async (request, reply) => {
      const { orgId } = request.params as { orgId: string };
      await organizations.seat(authOf(request).userId, orgId, 'read_all');
      return sendUsageExport(reply, services, orgId, request.query as UsageExportQuery);
    },
  });
}
