/** Payment provider `type` → adapter; the config has one section per type (`payments.stripe`). */
import { UpstreamHttpClient } from '../../adapters/outbound/upstream-http-client.ts';
import type { PaymentsConfig, StripeConfig } from '../../config/config.types.ts';
import type { PaymentProvider } from '../../ports/payment-provider.port.ts';
import { StripeCheckoutProvider } from '../payments/stripe/stripe-checkout.provider.ts';
import { ProviderRegistry } from '../provider-registry.ts';

/** What the composition root shares with the payment adapters. */
export interface PaymentProviderDeps {
  http: UpstreamHttpClient;
}

export const PAYMENT_PROVIDERS = new ProviderRegistry<StripeConfig, PaymentProviderDeps, PaymentProvider>({
  stripe: (config, deps) => new StripeCheckoutProvider(config, deps.http),
});

/** The configured payment provider, or undefined (top-ups disabled). */
export function buildPaymentProvider(config: PaymentsConfig, deps: Partial<PaymentProviderDeps> = {}): PaymentProvider | undefined {
  if (!config.stripe) return undefined;
  return PAYMENT_PROVIDERS.createIfKnown('stripe', config.stripe, { http: deps.http ?? new UpstreamHttpClient({ timeoutMs: 20_000, userAgent: 'Switchboard/0.1 (+payments)' }) });
}
