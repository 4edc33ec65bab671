import type { Logger } from 'pino';
import type { PaymentsConfig, RateLimitSetting } from '../../config/config.types.ts';
import { AppError, invalidInput } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import { centsToMicro } from '../../domain/money.ts';
import type { AccountStore } from '../../ports/account-store.port.ts';
import type { BillingStore, CheckoutRow } from '../../ports/billing-store.port.ts';
import type { LedgerBook } from '../../ports/ledger.port.ts';
import type { PaymentEvent, PaymentProvider } from '../../ports/payment-provider.port.ts';
import { type RateLimiter, retryAfterSeconds } from '../../ports/rate-limiter.port.ts';
import type { UnitOfWork } from '../../ports/unit-of-work.port.ts';
import { IDEMPOTENCY_KEY } from '../../domain/idempotency-key.ts';

export interface TopupsDeps {
  billing: BillingStore;
  accounts: AccountStore;
  ledger: LedgerBook;
  uow: UnitOfWork;
  /** Undefined when the operator configured no payment provider: top-ups are disabled. */
  provider: PaymentProvider | undefined;
  config: PaymentsConfig;
  /** Where the provider sends the payer back (the dashboard's billing page). */
  billingUrl: () => string;
  logger: Logger;
  limiter: RateLimiter;
  /** New checkout sessions per user (a retry under the same Idempotency-Key is not a new one). */
  checkoutsPerUser: RateLimitSetting;
}

export interface WebhookOutcome {
  /** What the event did: `credited` exactly once per paid session, `already` for a repeat. */
  result: 'credited' | 'already' | 'pending' | 'expired' | 'failed' | 'review' | 'unknown_session' | 'ignored';
  checkoutId?: string;
}


/**
 * Top-ups through a payment provider: a checkout row (created → paid | expired | failed, by
 * compare-and-set) and, for a paid session, one `topup_credit` entry whose reference is the session
 * id, written in the same transaction as the status change. A webhook delivered twice, or two at once,
 * credits once: the compare-and-set lets one through, and the ledger's (kind, reference) would refuse
 * a second entry anyway.
 */
export class TopupsService {
  readonly #deps: TopupsDeps;

  constructor(deps: TopupsDeps) {
    this.#deps = deps;
  }

  get enabled(): boolean {
    return this.#deps.provider !== undefined;
  }

  get limits(): { minCents: number; maxCents: number } {
    return { minCents: this.#deps.config.minTopupCents, maxCents: this.#deps.config.maxTopupCents };
  }

  /**
   * Opens a checkout for `amountCents`. With an Idempotency-Key, a retry returns the same checkout (and
   * the provider the same session); the same key with another amount is refused.
   */
  async startCheckout(userId: string, amountCents: number, idempotencyKey: string | undefined): Promise<CheckoutRow> {
    const provider = this.#deps.provider;
    if (!provider) throw new AppError('topups_disabled', 'top-ups are not enabled on this gateway: ask the operator for a redeem code or a credit');
    const { minCents, maxCents } = this.limits;
    if (!Number.isSafeInteger(amountCents) || amountCents < minCents || amountCents > maxCents) {
      throw invalidInput(`amountCents must be a whole number of cents from ${minCents} to ${maxCents}`, 'amountCents');
    }
    if (idempotencyKey !== undefined && !IDEMPOTENCY_KEY.test(idempotencyKey)) {
      throw invalidInput('the Idempotency-Key header must be 1 to 200 visible ASCII characters', 'Idempotency-Key');
    }
    const { billing: checkouts, accounts, uow } = this.#deps;
    const db = uow.direct;
    const user = await accounts.findUser(db, userId);
    if (!user) throw new AppError('user_not_found', 'user not found');
    const replay = idempotencyKey === undefined ? undefined : await checkouts.findCheckoutByKey(db, userId, idempotencyKey);
    if (!replay?.session_id || !replay.url) await this.#countNewCheckout(userId);
    const now = Date.now();
    const id = newId('chk', now);
    const row: CheckoutRow = {
      id,
      user_id: userId,
      provider: provider.name,
      idempotency_key: idempotencyKey ?? id,
      session_id: null,
      url: null,
      amount_micro: centsToMicro(amountCents),
      status: 'created',
      created_at: now,
      completed_at: null,
      paid_amount_minor: null,
      paid_currency: null,
    };
    let checkout = row;
    if (!(await checkouts.addCheckoutOnce(db, row))) {
      const earlier = await checkouts.findCheckoutByKey(db, userId, row.idempotency_key);
      if (!earlier) throw new Error('checkout vanished');
      if (earlier.amount_micro !== row.amount_micro) throw new AppError('idempotency_key_reused', 'this Idempotency-Key was used with a different amount');
      if (earlier.session_id && earlier.url) return earlier;
      checkout = earlier;
    }
    const billing = this.#deps.billingUrl();
    const session = await provider.createCheckout({
      checkoutId: checkout.id,
      userId,
      email: user.email,
      amountCents,
      successUrl: `${billing}?checkout=${checkout.id}`,
      cancelUrl: `${billing}?checkout=${checkout.id}&cancelled=1`,
      // Our checkout id: a retry after a lost answer gets the same session back from the provider.
      idempotencyKey: `switchboard-checkout-${checkout.id}`,
    });
    await checkouts.attachCheckoutSession(db, checkout.id, session.sessionId, session.url);
    return (await checkouts.findCheckout(db, checkout.id)) ?? { ...checkout, session_id: session.sessionId, url: session.url };
  }

  /** Each checkout is a session at the provider: a user opens a few, not forty in a second. */
  async #countNewCheckout(userId: string): Promise<void> {
    const verdict = await this.#deps.limiter.hit(`checkout:user:${userId}`, this.#deps.checkoutsPerUser);
    if (verdict.allowed) return;
    const retryAfter = retryAfterSeconds(verdict);
    throw new AppError('rate_limited', `too many checkouts started; try again in ${retryAfter} s`, { retryAfter });
  }

  async checkout(userId: string, id: string): Promise<CheckoutRow> {
    const row = await this.#deps.billing.findCheckout(this.#deps.uow.direct, id);
    if (!row || row.user_id !== userId) throw new AppError('not_found', 'no such checkout');
    return row;
  }

  recentCheckouts(userId: string, limit: number): Promise<CheckoutRow[]> {
    return this.#deps.billing.listCheckouts(this.#deps.uow.direct, userId, limit);
  }

  /** Verifies and applies one webhook delivery. Throws invalid_input (nothing moved) when it is not genuine. */
  async handleWebhook(rawBody: Buffer, headers: Record<string, string | undefined>): Promise<WebhookOutcome> {
    const provider = this.#deps.provider;
    if (!provider) throw new AppError('topups_disabled', 'top-ups are not enabled on this gateway');
    const event = provider.verifyWebhook(rawBody, headers);
    return this.apply(event);
  }

  async apply(event: PaymentEvent): Promise<WebhookOutcome> {
    if (event.kind === 'ignored') return { result: 'ignored' };
    const db = this.#deps.uow.direct;
    const checkout = await this.#deps.billing.findCheckoutBySession(db, event.sessionId);
    if (!checkout) {
      // A session made elsewhere on the same provider account: acknowledged, so it is not retried.
      this.#deps.logger.warn({ sessionId: event.sessionId, event: event.kind }, 'payment webhook for an unknown checkout session');
      return { result: 'unknown_session' };
    }
    const now = Date.now();
    switch (event.kind) {
      case 'checkout_pending':
        return { result: 'pending', checkoutId: checkout.id };
      case 'checkout_expired':
      case 'checkout_failed': {
        const status = event.kind === 'checkout_expired' ? 'expired' : 'failed';
        await this.#deps.billing.completeCheckout(db, checkout.id, status, now);
        return { result: status, checkoutId: checkout.id };
      }
      case 'checkout_paid':
        return this.#credit(checkout, event, now);
    }
  }

  async #credit(checkout: CheckoutRow, event: Extract<PaymentEvent, { kind: 'checkout_paid' }>, now: number): Promise<WebhookOutcome> {
    const currency = event.currency.toLowerCase();
    if (currency !== 'usd' || centsToMicro(event.amountCents) !== checkout.amount_micro) {
      // Our sessions fix the price, so a different amount is not ours to interpret: nothing is credited
      // and an operator decides. The delivery is acknowledged: the event is genuine, and a refusal
      // would only make the provider send it again for days.
      const held = await this.#deps.billing.holdCheckoutForReview(this.#deps.uow.direct, checkout.id, { amountMinor: event.amountCents, currency }, now);
      if (held) {
        this.#deps.logger.error(
          { checkoutId: checkout.id, sessionId: event.sessionId, userId: checkout.user_id, expectedMicro: checkout.amount_micro, paidAmountMinor: event.amountCents, paidCurrency: currency },
          'paid amount differs from the checkout: held for review, nothing credited',
        );
      }
      return { result: held ? 'review' : 'already', checkoutId: checkout.id };
    }
    const sessionId = event.sessionId;
    const credited = await this.#deps.uow.transaction(async (tx) => {
      // The first delivery moves the checkout to paid; a concurrent or later one finds it paid and stops.
      // From expired or failed too: money the provider says it took is never left uncredited.
      const moved = await this.#deps.billing.completeCheckout(tx, checkout.id, 'paid', now, ['created', 'expired', 'failed']);
      if (!moved) return false;
      const posted = await this.#deps.ledger.post(
        tx,
        { userId: checkout.user_id, kind: 'topup_credit', reference: sessionId, amountMicro: checkout.amount_micro, note: `top-up ${checkout.id}` },
        now,
      );
      return posted.created;
    });
    if (credited) this.#deps.logger.info({ checkoutId: checkout.id, amountMicro: checkout.amount_micro, userId: checkout.user_id }, 'top-up credited');
    return { result: credited ? 'credited' : 'already', checkoutId: checkout.id };
  }
}
