/**
 * A payment provider that sells balance through a hosted checkout page and reports the outcome by a
 * signed webhook. Amounts at this port are USD cents (what card networks charge); the ledger converts.
 */
export interface CheckoutRequest {
  /** Our checkout id: the provider carries it back (client reference, metadata). */
  checkoutId: string;
  userId: string;
  email: string | null;
  amountCents: number;
  successUrl: string;
  cancelUrl: string;
  /** A retried create with the same key returns the same session at the provider. */
  idempotencyKey: string;
}

export interface CheckoutSession {
  sessionId: string;
  /** The provider's hosted payment page. */
  url: string;
}

/** What a verified webhook says about a checkout; `ignored` for every event we do not act on. */
export type PaymentEvent =
  | { kind: 'checkout_paid'; sessionId: string; checkoutId: string | undefined; amountCents: number; currency: string }
  | { kind: 'checkout_pending'; sessionId: string }
  | { kind: 'checkout_expired'; sessionId: string }
  | { kind: 'checkout_failed'; sessionId: string }
  | { kind: 'ignored'; type: string };

export interface PaymentProvider {
  readonly name: string;
  /** Throws AppError (upstream_error, retryable) when the provider refuses or cannot be reached. */
  createCheckout(request: CheckoutRequest): Promise<CheckoutSession>;
  /**
   * Checks the signature over the exact bytes received and parses the event. Throws AppError
   * invalid_input for a missing, wrong or stale signature or a malformed body: nothing may move then.
   */
  verifyWebhook(rawBody: Buffer, headers: Record<string, string | undefined>, nowMs?: number): PaymentEvent;
}
