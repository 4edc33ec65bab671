import type { FastifyInstance } from 'fastify';
import { mayDo } from '../../../domain/accounts/organization-roles.ts';
import { AppError } from '../../../domain/errors.ts';
import type { AppServices } from '../../app-services.ts';
import { authOf, requireSession } from '../../auth.ts';
import { AUTH_BODY_LIMIT } from '../../body-limits.ts';
import { envelope, errorResponse, idParam } from '../../schemas.ts';
import { accountLedgerEntrySchema, type LedgerPageParams, ledgerPageOf, ledgerPageQuerySchema, presentLedgerPage } from '../billing/billing-schemas.ts';

/**
 * An organization's books (issue 33, item 3): its ledger, whole for an owner or admin and one
 * member's part (`member`), a member's own part for a member; and money in by redeem code (an owner).
 */
export function registerOrganizationBookRoutes(app: FastifyInstance, services: AppServices): void {
  const session = requireSession();
  const { organizations } = services;
  const { accountLedger, redeemCodes } = services.billing;

  app.get('/api/v1/organizations/:orgId/ledger', {
    onRequest: session,
    schema: {
      params: idParam('orgId', 'Organization id'),
      querystring: {
        ...ledgerPageQuerySchema,
        properties: { ...(ledgerPageQuerySchema.properties as object), member: { type: 'string', maxLength: 200, description: "Only the entries of this member (a member reads only their own)" } },
      },
    },
    config: {
      docs: {
        summary: "The organization's ledger, newest first; each entry names the member whose key or session moved the money",
        tags: ['Organizations'],
        auth: 'none',
        responses: {
          200: { description: 'A page of entries', schema: envelope({ type: 'object', required: ['items', 'nextCursor'], properties: { items: { type: 'array', items: accountLedgerEntrySchema }, nextCursor: { type: ['string', 'null'] } } }) },
          400: errorResponse('An unknown kind, or a bad limit or cursor'),
          403: errorResponse("A member asking for someone else's entries"),
          404: errorResponse('Not an organization you belong to'),
        },
      },
    },
    handler: async (request) => {
      const { orgId } = request.params as { orgId: string };
      const query = request.query as LedgerPageParams & { member?: string };
      const me = authOf(request).userId;
      const { role } = await organizations.seat(me, orgId);
      const wholeBooks = mayDo(role, 'read_all');
      if (!wholeBooks && query.member !== undefined && query.member !== me) throw new AppError('forbidden', "a member reads only their own part of the organization's books");
      const page = ledgerPageOf(query);
      const entries = await accountLedger.entries(orgId, { ...page, memberId: wholeBooks ? query.member : me });
      return { code: 200, data: presentLedgerPage(entries, page.limit) };
    },
  });

  app.post('/api/v1/organizations/:orgId/redeem', {
    onRequest: session,
    bodyLimit: AUTH_BODY_LIMIT,
    schema: { params: idParam('orgId', 'Organization id'), body: { type: 'object', additionalProperties: false, required: ['code'], properties: { code: { type: 'string', maxLength: 200 } } } },
    config: {
      docs: {
        summary: 'Redeem a code for the organization (an owner): its amount is added to the organization’s balance',
        tags: ['Organizations'],
        auth: 'none',
        responses: {
          200: { description: 'Credited', schema: envelope({ type: 'object', required: ['amountMicroUsd', 'balanceMicroUsd'], properties: { amountMicroUsd: { type: 'string' }, balanceMicroUsd: { type: 'string' } } }) },
          403: errorResponse('Not an owner'),
        },
      },
    },
    handler: async (request) => {
      const { orgId } = request.params as { orgId: string };
      const me = authOf(request).userId;
      await organizations.seat(me, orgId, 'billing');
      const posted = await redeemCodes.redeem({ userId: orgId, keyId: undefined, memberId: me }, (request.body as { code: string }).code);
      return { code: 200, data: { amountMicroUsd: String(posted.entry.amount_micro), balanceMicroUsd: String(posted.entry.balance_after_micro) } };
    },
  });
}
