import type { PaymentsConfig } from '../../config/config.types.ts';
import type { PaymentProvider } from '../../ports/payment-provider.port.ts';
import { StripeCheckoutProvider } from './stripe/stripe-checkout.provider.ts';

/** The configured payment provider, or undefined (top-ups disabled). */
export function buildPaymentProvider(config: PaymentsConfig): PaymentProvider | undefined {
  return config.stripe ? new StripeCheckoutProvider(config.stripe) : undefined;
}
