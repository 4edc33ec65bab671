import type { FastifyInstance } from 'fastify';
import { type CheckoutRow, listCheckoutsInReview } from '../../../adapters/db/repositories/payments.repository.ts';
import type { AppServices } from '../../app-services.ts';
import { requireAdmin } from '../../auth.ts';
import { iso } from '../../schemas.ts';

const reviewSchema = {
  type: 'object',
  required: ['id', 'userId', 'provider', 'sessionId', 'expectedMicroUsd', 'paidAmountMinor', 'paidCurrency', 'createdAt', 'heldAt'],
  properties: {
    id: { type: 'string' },
    userId: { type: 'string' },
    provider: { type: 'string' },
    sessionId: { type: ['string', 'null'] },
    expectedMicroUsd: { type: 'string', description: 'What the checkout was opened for, in micro-USD' },
    paidAmountMinor: { type: ['integer', 'null'], description: "What the provider says was paid, in the currency's minor unit" },
    paidCurrency: { type: ['string', 'null'] },
    createdAt: { type: 'string', format: 'date-time' },
    heldAt: { type: ['string', 'null'], format: 'date-time' },
  },
};

function presentReview(row: CheckoutRow) {
  return {
    id: row.id,
    userId: row.user_id,
    provider: row.provider,
    sessionId: row.session_id,
    expectedMicroUsd: String(row.amount_micro),
    paidAmountMinor: row.paid_amount_minor,
    paidCurrency: row.paid_currency,
    createdAt: iso(row.created_at),
    heldAt: iso(row.completed_at),
  };
}

/**
 * Top-ups the payment provider says were paid with another amount or currency than opened: nothing
 * was credited; the operator settles each one (a credit through POST /admin/v1/users/{id}/credits, or a
 * refund at the provider).
 */
export function registerAdminCheckoutRoutes(app: FastifyInstance, services: AppServices): void {
  app.get('/admin/v1/checkouts/review', {
    onRequest: requireAdmin(services),
    config: {
      docs: {
        summary: 'Paid top-ups held for review (amount or currency differs from the checkout), oldest first',
        tags: ['Admin'],
        auth: 'admin',
        responses: { 200: { description: '`{data: [checkout]}`', schema: { type: 'object', properties: { data: { type: 'array', items: reviewSchema } } } } },
      },
    },
    handler: async () => ({ data: (await listCheckoutsInReview(services.database.db)).map(presentReview) }),
  });
}
