import type { UpstreamHttpClient } from '../../../adapters/outbound/upstream-http-client.ts';
import type { StripeConfig } from '../../../config/config.types.ts';
import { AppError, invalidInput } from '../../../domain/errors.ts';
import type { CheckoutRequest, CheckoutSession, PaymentEvent, PaymentProvider } from '../../../ports/payment-provider.port.ts';
import { checkStripeSignature } from './stripe-signature.ts';

const TIMEOUT_MS = 20_000;
/** A Checkout Session object is a few KiB; more is not an answer we can use. */
const MAX_ANSWER_BYTES = 1024 * 1024;

/**
 * The API version every call is made at, so that a change of the account's default version cannot
 * change what a create answers. `2026-10-28.endive` is the version stripe-node 23.1.0 pins
 * (esm/apiVersion.js, read 2026-11-25); its Checkout Session create parameters and the session fields
 * we read (`payment_status`, `amount_total`, `currency`, `client_reference_id`) are unchanged there.
 * The webhook endpoint should be created at the same version (its events are rendered in it).
 */
export const STRIPE_API_VERSION = '2026-10-28.endive';

function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
}

/**
 * Stripe Checkout over its plain HTTP API (no SDK: two calls do not need one), through the provider
 * HTTP client (its address policy, deadline and bounded answer): a one-off `payment`
 * session with an inline USD price, and the `Stripe-Signature` check of its webhooks.
 * https://docs.stripe.com/api/checkout/sessions/create, https://docs.stripe.com/webhooks#verify-manually
 */
export class StripeCheckoutProvider implements PaymentProvider {
  readonly name = 'stripe';
  readonly #config: StripeConfig;
  readonly #http: UpstreamHttpClient;

  constructor(config: StripeConfig, http: UpstreamHttpClient) {
    this.#config = config;
    this.#http = http;
  }

  async createCheckout(request: CheckoutRequest): Promise<CheckoutSession> {
    const form = new URLSearchParams();
    form.set('mode', 'payment');
    form.set('line_items[0][price_data][currency]', 'usd');
    form.set('line_items[0][price_data][unit_amount]', String(request.amountCents));
    form.set('line_items[0][price_data][product_data][name]', 'Switchboard balance top-up');
    form.set('line_items[0][quantity]', '1');
    form.set('success_url', request.successUrl);
    form.set('cancel_url', request.cancelUrl);
    form.set('client_reference_id', request.checkoutId);
    form.set('metadata[checkout_id]', request.checkoutId);
    form.set('metadata[user_id]', request.userId);
    if (request.email) form.set('customer_email', request.email);
    const exchange = await this.#http.send({
      method: 'POST',
      url: `${this.#config.apiBase}/v1/checkout/sessions`,
      headers: {
        authorization: `Bearer ${this.#config.secretKey}`,
        'content-type': 'application/x-www-form-urlencoded',
        'idempotency-key': request.idempotencyKey,
        'stripe-version': STRIPE_API_VERSION,
      },
      body: form.toString(),
      timeoutMs: TIMEOUT_MS,
      maxBytes: MAX_ANSWER_BYTES,
    });
    if (exchange.kind === 'no-response') {
      throw new AppError('upstream_error', 'the payment provider could not be reached; try again', { cause: new Error(exchange.error.message) });
    }
    const { status } = exchange.response;
    const body = parseJson(exchange.response.body) as { id?: unknown; url?: unknown; error?: { message?: unknown } } | undefined;
    if (status < 200 || status >= 300 || typeof body?.id !== 'string' || typeof body.url !== 'string') {
      const detail = typeof body?.error?.message === 'string' ? `: ${body.error.message}` : '';
      throw new AppError('upstream_error', `the payment provider refused the checkout (HTTP ${status})${detail}`);
    }
    return { sessionId: body.id, url: body.url };
  }

  verifyWebhook(rawBody: Buffer, headers: Record<string, string | undefined>, nowMs: number = Date.now()): PaymentEvent {
    const check = checkStripeSignature(headers['stripe-signature'], rawBody, this.#config.webhookSecret, nowMs);
    if (check !== 'valid') throw invalidInput(`the Stripe-Signature header is ${check === 'stale' ? 'too old (or in the future)' : check}`, 'Stripe-Signature');
    let event: unknown;
    try {
      event = JSON.parse(rawBody.toString('utf8'));
    } catch {
      throw invalidInput('the webhook body is not JSON');
    }
    return parseEvent(event);
  }
}

interface StripeSessionObject {
  id?: unknown;
  object?: unknown;
  payment_status?: unknown;
  amount_total?: unknown;
  currency?: unknown;
  client_reference_id?: unknown;
}

function parseEvent(event: unknown): PaymentEvent {
  const e = event as { type?: unknown; data?: { object?: StripeSessionObject } } | null;
  if (!e || typeof e.type !== 'string') throw invalidInput('the webhook body is not a Stripe event');
  if (!e.type.startsWith('checkout.session.')) return { kind: 'ignored', type: e.type };
  const session = e.data?.object;
  if (session?.object !== 'checkout.session' || typeof session.id !== 'string') throw invalidInput('the event carries no checkout session');
  const sessionId = session.id;
  switch (e.type) {
    case 'checkout.session.completed':
    case 'checkout.session.async_payment_succeeded': {
      // `completed` with `unpaid` is a delayed method (bank debit): async_payment_succeeded follows.
      if (session.payment_status !== 'paid') return { kind: 'checkout_pending', sessionId };
      if (typeof session.amount_total !== 'number' || typeof session.currency !== 'string') throw invalidInput('the paid session has no amount');
      const checkoutId = typeof session.client_reference_id === 'string' ? session.client_reference_id : undefined;
      return { kind: 'checkout_paid', sessionId, checkoutId, amountCents: session.amount_total, currency: session.currency };
    }
    case 'checkout.session.async_payment_failed':
      return { kind: 'checkout_failed', sessionId };
    case 'checkout.session.expired':
      return { kind: 'checkout_expired', sessionId };
    default:
      return { kind: 'ignored', type: e.type };
  }
}
