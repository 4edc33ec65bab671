import type { FastifyInstance } from 'fastify';
import { AppError } from '../../../domain/errors.ts';
import type { AppServices } from '../../app-services.ts';
import { authOf, requireApiKey } from '../../auth.ts';
import { presentLedgerEntry } from '../../presenters.ts';
import { envelope, errorResponse, idParam, ledgerEntrySchema } from '../../schemas.ts';
import { checkoutSchema, presentCheckout } from './billing-schemas.ts';

/** Stripe's events are a few kilobytes; a checkout session event well under 64 KiB. */
const WEBHOOK_BODY_LIMIT = 256 * 1024;

/** Top-ups through the payment provider, its signed webhook, and redeem codes. */
export function registerBillingTopupRoutes(app: FastifyInstance, services: AppServices): void {
  const { topups, redeemCodes } = services.billing;

  app.post('/api/v1/billing/checkout', {
    onRequest: requireApiKey(services.authenticator),
    schema: {
      headers: { type: 'object', properties: { 'idempotency-key': { type: 'string', description: 'Optional; a retry with the same key returns the same checkout' } } },
      body: {
        type: 'object',
        additionalProperties: false,
        required: ['amountCents'],
        properties: { amountCents: { type: 'integer', minimum: 1, maximum: 100_000_000, description: 'USD cents; within the gateway\'s top-up bounds (GET /api/v1/billing)' } },
      },
    },
    config: {
      docs: {
        summary: 'Start a top-up: a checkout at the payment provider; send the payer to its url',
        tags: ['Billing'],
        auth: 'apiKey',
        responses: {
          200: { description: 'The checkout; the balance is credited once the provider confirms the payment', schema: envelope(checkoutSchema) },
          400: errorResponse('An amount outside the bounds'),
          401: errorResponse('Missing or invalid API key'),
          403: errorResponse('Top-ups are not enabled on this gateway (topups_disabled)'),
          409: errorResponse('Idempotency-Key reused with another amount'),
          502: errorResponse('The payment provider refused or could not be reached'),
        },
      },
    },
    handler: async (request) => {
      const { userId } = authOf(request);
      const { amountCents } = request.body as { amountCents: number };
      const key = request.headers['idempotency-key'];
      const checkout = await topups.startCheckout(userId, amountCents, typeof key === 'string' ? key : undefined);
      return { code: 200, data: presentCheckout(checkout) };
    },
  });

  app.get('/api/v1/billing/checkout/:checkoutId', {
    onRequest: requireApiKey(services.authenticator),
    schema: { params: idParam('checkoutId', 'Checkout id') },
    config: {
      docs: {
        summary: 'One of your top-ups, to learn whether it was paid',
        tags: ['Billing'],
        auth: 'apiKey',
        responses: { 200: { description: 'The checkout', schema: envelope(checkoutSchema) }, 401: errorResponse('Missing or invalid API key'), 404: errorResponse('No such checkout of yours') },
      },
    },
    handler: async (request) => {
      const { checkoutId } = request.params as { checkoutId: string };
      return { code: 200, data: presentCheckout(await topups.checkout(authOf(request).userId, checkoutId)) };
    },
  });

  app.post('/api/v1/billing/redeem', {
    onRequest: requireApiKey(services.authenticator),
    schema: {
      body: { type: 'object', additionalProperties: false, required: ['code'], properties: { code: { type: 'string', minLength: 1, maxLength: 100 } } },
    },
    config: {
      docs: {
        summary: 'Redeem a code: its amount is credited once per user',
        tags: ['Billing'],
        auth: 'apiKey',
        responses: {
          200: { description: 'The credit', schema: envelope(ledgerEntrySchema) },
          400: errorResponse('No code given'),
          401: errorResponse('Missing or invalid API key'),
          404: errorResponse('Not redeemable (redeem_code_invalid): no such code, or expired, withdrawn or used up; one answer for all'),
          409: errorResponse('Already redeemed by you (redeem_code_already_redeemed)'),
          429: errorResponse('Too many redeem attempts from this key or account (rate_limited, with Retry-After)'),
        },
      },
    },
    handler: async (request) => {
      const { code } = request.body as { code: string };
      const { userId, keyId } = authOf(request);
      const posted = await redeemCodes.redeem({ userId, keyId }, code);
      services.metrics.ledgerEntries.inc({ kind: 'redeem_credit' });
      return { code: 200, data: presentLedgerEntry(posted.entry) };
    },
  });

  void app.register(async (scope) => {
    // The signature covers the exact bytes: this route keeps the body as a Buffer.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: WEBHOOK_BODY_LIMIT }, (_request, body, done) => done(null, body));
    scope.post('/api/v1/billing/webhooks/stripe', {
      config: {
        docs: {
          summary: "Stripe's webhook (signed with Stripe-Signature); point the endpoint's checkout.session events here",
          tags: ['Billing'],
          auth: 'none',
          responses: {
            200: { description: 'Received (credited at most once per paid session; other events acknowledged and ignored)' },
            400: errorResponse('Missing, wrong or stale signature, or not an event: nothing changed'),
            403: errorResponse('Top-ups are not enabled on this gateway'),
          },
        },
      },
      handler: async (request) => {
        if (!topups.enabled) throw new AppError('topups_disabled', 'top-ups are not enabled on this gateway');
        const rawBody = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
        const headers = Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(',') : v]));
        const outcome = await topups.handleWebhook(rawBody, headers);
        if (outcome.result === 'credited') services.metrics.ledgerEntries.inc({ kind: 'topup_credit' });
        return { received: true, result: outcome.result };
      },
    });
  });
}
