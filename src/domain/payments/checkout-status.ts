/**
 * A checkout's life: `created` when the provider opened its payment page, then exactly one of `paid`
 * (credited), `expired` (the page closed unpaid) or `failed` (a delayed payment was declined). Every
 * change is a compare-and-set from `created`, so the first terminal write wins.
 */
export const CHECKOUT_STATUSES = ['created', 'paid', 'expired', 'failed'] as const;

export type CheckoutStatus = (typeof CHECKOUT_STATUSES)[number];

export function isTerminalCheckout(status: CheckoutStatus): boolean {
  return status !== 'created';
}
