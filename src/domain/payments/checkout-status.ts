/**
 * A checkout's life: `created` when the provider opened its payment page, then exactly one of `paid`
 * (credited), `expired` (the page closed unpaid), `failed` (a delayed payment was declined) or
 * `review` (the provider says it was paid, but not the amount or currency we opened: nothing is
 * credited, an operator decides). Every change is a compare-and-set, so the first terminal write wins.
 */
export const CHECKOUT_STATUSES = ['created', 'paid', 'expired', 'failed', 'review'] as const;

export type CheckoutStatus = (typeof CHECKOUT_STATUSES)[number];

export function isTerminalCheckout(status: CheckoutStatus): boolean {
  return status !== 'created';
}
