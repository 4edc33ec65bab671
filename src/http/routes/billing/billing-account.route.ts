import type { FastifyInstance } from 'fastify';
import type { AppServices } from '../../app-services.ts';
import { authOf, requireApiKey } from '../../auth.ts';
import { envelope, errorResponse, iso } from '../../schemas.ts';
import { accountLedgerEntrySchema, checkoutSchema, type LedgerPageParams, ledgerPageOf, ledgerPageQuerySchema, presentCheckout, presentLedgerPage } from './billing-schemas.ts';

const microString = { type: 'string', pattern: '^-?[0-9]+$' };

const summarySchema = {
  type: 'object',
  required: ['balanceMicroUsd', 'heldMicroUsd', 'availableMicroUsd', 'holds', 'agentRuns', 'topups', 'recentCheckouts'],
  properties: {
    balanceMicroUsd: { ...microString, description: 'Money on the account (the sum of the ledger)' },
    heldMicroUsd: { ...microString, description: 'Reserved by requests still running (chat requests, agent model calls)' },
    availableMicroUsd: { ...microString, description: 'What new requests can spend: balance less held' },
    holds: {
      type: 'array',
      items: {
        type: 'object',
        required: ['chatRequestId', 'model', 'amountMicroUsd', 'createdAt', 'agentConversationId'],
        properties: {
          chatRequestId: { type: 'string' },
          model: { type: 'string' },
          amountMicroUsd: microString,
          createdAt: { type: 'string', format: 'date-time' },
          agentConversationId: { type: ['string', 'null'] },
        },
      },
    },
    agentRuns: {
      type: 'array',
      description: 'Agent runs not ended, with their budget: settled charges and commitments of operations in flight, within the run limit',
      items: {
        type: 'object',
        required: ['runId', 'conversationId', 'status', 'limitMicroUsd', 'settledMicroUsd', 'committedMicroUsd'],
        properties: {
          runId: { type: 'string' },
          conversationId: { type: 'string' },
          status: { type: 'string' },
          limitMicroUsd: microString,
          settledMicroUsd: microString,
          committedMicroUsd: microString,
        },
      },
    },
    topups: {
      type: 'object',
      required: ['enabled', 'minCents', 'maxCents'],
      properties: { enabled: { type: 'boolean' }, minCents: { type: 'integer' }, maxCents: { type: 'integer' } },
    },
    recentCheckouts: { type: 'array', items: checkoutSchema },
  },
};

/** The signed-in user's (or API key's) own money: what is there, what is held, and every movement. */
export function registerBillingAccountRoutes(app: FastifyInstance, services: AppServices): void {
  const { accountLedger, topups } = services.billing;

  app.get('/api/v1/billing', {
    onRequest: requireApiKey(services.authenticator),
    config: {
      docs: {
        summary: 'Balance, money held by running requests, what is available, and top-up settings',
        tags: ['Billing'],
        auth: 'apiKey',
        responses: { 200: { description: 'Amounts in micro-USD strings', schema: envelope(summarySchema) }, 401: errorResponse('Missing or invalid API key') },
      },
    },
    handler: async (request) => {
      const { userId } = authOf(request);
      const [snapshot, checkouts] = await Promise.all([accountLedger.snapshot(userId), topups.recentCheckouts(userId, 10)]);
      return {
        code: 200,
        data: {
          balanceMicroUsd: String(snapshot.balanceMicro),
          heldMicroUsd: String(snapshot.heldMicro),
          availableMicroUsd: String(Math.max(0, snapshot.balanceMicro - snapshot.heldMicro)),
          holds: snapshot.holds.map((h) => ({
            chatRequestId: h.id,
            model: h.model,
            amountMicroUsd: String(h.hold_micro),
            createdAt: iso(h.created_at),
            agentConversationId: h.agentConversationId,
          })),
          agentRuns: snapshot.openRuns.map((r) => ({
            runId: r.id,
            conversationId: r.conversation_id,
            status: r.status,
            limitMicroUsd: String(r.limit_micro),
            settledMicroUsd: String(r.settled_micro),
            committedMicroUsd: String(r.committed_micro),
          })),
          topups: { enabled: topups.enabled, ...topups.limits },
          recentCheckouts: checkouts.map(presentCheckout),
        },
      };
    },
  });

  app.get('/api/v1/billing/ledger', {
    onRequest: requireApiKey(services.authenticator),
    schema: {
      querystring: ledgerPageQuerySchema,
    },
    config: {
      docs: {
        summary: 'Your ledger, newest first: credits, top-ups, charges and refunds, each with what it is about',
        tags: ['Billing'],
        auth: 'apiKey',
        responses: {
          200: {
            description: 'A page of entries',
            schema: envelope({ type: 'object', required: ['items', 'nextCursor'], properties: { items: { type: 'array', items: accountLedgerEntrySchema }, nextCursor: { type: ['string', 'null'] } } }),
          },
          400: errorResponse('An unknown kind, or a bad limit or cursor'),
          401: errorResponse('Missing or invalid API key'),
        },
      },
    },
    handler: async (request) => {
      const { userId } = authOf(request);
      const page = ledgerPageOf(request.query as LedgerPageParams);
      const entries = await accountLedger.entries(userId, page);
      return { code: 200, data: presentLedgerPage(entries, page.limit) };
    },
  });
}
