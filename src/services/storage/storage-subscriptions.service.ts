/**
 * Storage plans, quotes and subscriptions (SPEC rule 18): a quote prices a change for this user now
 * (new, upgrade prorated to the micro-USD, downgrade at the next renewal, payment during grace);
 * subscribe carries it out once, charging the quoted amount through the ledger in the same
 * transaction that changes the subscription, under an Idempotency-Key.
 */
import { requestHash } from '../../domain/canonical-json.ts';
import { echo } from '../../domain/echo.ts';
import { AppError, invalidInput } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import { spendableMicro } from '../../domain/money.ts';
import { changeKind, periodEnd, prorateUpgrade, type StoragePlan, type StoragePlanCatalog } from '../../domain/storage/storage-plans.ts';
import type { LedgerBook } from '../../ports/ledger.port.ts';
import type { UsersRow } from '../../ports/store-rows/foundation.rows.ts';
import type { StorageQuoteRow, StorageStore, StorageSubscriptionRow } from '../../ports/storage-store.port.ts';
import type { StoreTransaction } from '../../ports/store-transaction.port.ts';
import type { UnitOfWork } from '../../ports/unit-of-work.port.ts';
import {
  presentCharge,
  presentPlan,
  presentQuote,
  presentSubscription,
  type StorageChargeView,
  type StoragePlanView,
  type StorageQuoteView,
  type StorageSubscriptionView,
} from './storage-views.ts';
import { IDEMPOTENCY_KEY } from '../../domain/idempotency-key.ts';

/** Who pays for a storage change: the user, through an API key or (null) a dashboard session. */
export interface StoragePayer {
  userId: string;
  keyId: string | null;
}

/** A quote holds its price this long. */
export const QUOTE_TTL_MS = 15 * 60_000;

export interface SubscribeResult {
  subscription: StorageSubscriptionView;
  charge: StorageChargeView | null;
}

export interface StorageAccountView {
  subscription: StorageSubscriptionView | null;
  /** The newest charges first (at most 24). */
  charges: StorageChargeView[];
}

function fieldsOf(body: unknown, allowed: readonly string[]): Record<string, unknown> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw invalidInput(`the body must be an object with ${allowed.join(', ')}`, 'body');
  const fields = body as Record<string, unknown>;
  for (const key of Object.keys(fields)) if (!allowed.includes(key)) throw invalidInput(`unknown field ${echo(key)}; allowed: ${allowed.join(', ')}`, key);
  return fields;
}

export function parseIdempotencyKey(value: unknown, required: boolean): string | undefined {
  if (value === undefined && !required) return undefined;
  if (typeof value !== 'string' || !IDEMPOTENCY_KEY.test(value)) throw invalidInput('the Idempotency-Key header is required: 1-200 visible ASCII characters', 'Idempotency-Key');
  return value;
}

/** The paying user's row; a user that does not exist is user_not_found, as everywhere. */
function existingUser(user: UsersRow | undefined): UsersRow {
  if (!user) throw new AppError('user_not_found', 'user not found');
  return user;
}

export class StorageSubscriptionsService {
  readonly #store: StorageStore;
  readonly #uow: UnitOfWork;
  readonly #ledger: LedgerBook;
  readonly #now: () => number;
  readonly #catalog: StoragePlanCatalog;

  constructor(deps: { store: StorageStore; uow: UnitOfWork; ledger: LedgerBook; now: () => number; plans: StoragePlanCatalog }) {
    this.#store = deps.store;
    this.#uow = deps.uow;
    this.#ledger = deps.ledger;
    this.#now = deps.now;
    this.#catalog = deps.plans;
  }

  plans(): StoragePlanView[] {
    return this.#catalog.plans.map(presentPlan);
  }

  async account(userId: string): Promise<StorageAccountView> {
    const [row, charges] = await Promise.all([this.#store.findSubscription(this.#uow.direct, userId), this.#store.listCharges(this.#uow.direct, userId, 24)]);
    return { subscription: row ? presentSubscription(row, this.#catalog) : null, charges: charges.map(presentCharge) };
  }

  async quote(userId: string, body: unknown): Promise<StorageQuoteView> {
    const fields = fieldsOf(body, ['planId']);
    const plan = typeof fields.planId === 'string' ? this.#catalog.find(fields.planId) : undefined;
    if (!plan) throw invalidInput(`planId must be one of ${this.#catalog.plans.map((p) => p.id).join(', ')}`, 'planId');
    const now = this.#now();
    const [subscription, user] = await Promise.all([this.#store.findSubscription(this.#uow.direct, userId), this.#store.findUser(this.#uow.direct, userId).then(existingUser)]);
    const priced = priceChange(subscription, plan, now, this.#catalog);
    const balance = spendableMicro(user);
    const row: StorageQuoteRow = {
      id: newId('sq', now),
      user_id: userId,
      plan_id: plan.id,
      change_kind: priced.kind,
      amount_micro: priced.amountMicro,
      balance_after_micro: balance - priced.amountMicro,
      period_start: priced.period.start,
      period_end: priced.period.end,
      quota_version: subscription?.version ?? 0,
      created_at: now,
      expires_at: now + QUOTE_TTL_MS,
      used_at: null,
    };
    await this.#store.recordQuote(this.#uow.direct, row);
    return presentQuote(row, balance);
  }

  /**
   * `payer`: the caller; a charge through an API key counts against its spend cap in the debit's
   * transaction (402 key_spend_cap_reached, nothing changed), and that key carries the renewals.
   */
  async subscribe(payer: StoragePayer, body: unknown, idempotencyKeyHeader: unknown): Promise<SubscribeResult> {
    const { userId } = payer;
    const key = parseIdempotencyKey(idempotencyKeyHeader, true) as string;
    const fields = fieldsOf(body, ['quoteId', 'quotaVersion', 'autoRenew']);
    if (typeof fields.quoteId !== 'string' || fields.quoteId.length > 100) throw invalidInput('quoteId is required: the id from POST /agent/storage/quote', 'quoteId');
    const quotaVersion = fields.quotaVersion;
    if (typeof quotaVersion !== 'number' || !Number.isSafeInteger(quotaVersion) || quotaVersion < 0) throw invalidInput('quotaVersion is required: the quotaVersion of the quote', 'quotaVersion');
    if (typeof fields.autoRenew !== 'boolean') throw invalidInput('autoRenew is required: true renews from the balance at the end of each period', 'autoRenew');
    const request = { quoteId: fields.quoteId, quotaVersion, autoRenew: fields.autoRenew };
    const scope = `storage_subscribe:${userId}`;
    const hash = requestHash(request);
    const earlier = await this.#store.findIdempotentResponse<SubscribeResult>(this.#uow.direct, scope, key, hash);
    if (earlier) return earlier;
    return this.#uow.transaction(async (tx) => {
      const now = this.#now();
      const replayed = await this.#store.reserveIdempotencyKey<SubscribeResult>(tx, scope, key, hash, now);
      if (replayed) return replayed;
      const result = await this.#apply(tx, payer, request, now);
      await this.#store.storeIdempotentResponse(tx, scope, key, result);
      return result;
    });
  }

  async #apply(tx: StoreTransaction, payer: StoragePayer, request: { quoteId: string; quotaVersion: number; autoRenew: boolean }, now: number): Promise<SubscribeResult> {
    const { userId, keyId } = payer;
    const quote = await this.#store.findQuote(tx, userId, request.quoteId);
    if (!quote) throw new AppError('not_found', `quote ${echo(request.quoteId)} not found`, { param: 'quoteId' });
    if (quote.used_at !== null) throw new AppError('storage_quote_invalid', 'this quote was used already: ask for a new quote', { param: 'quoteId' });
    if (quote.expires_at <= now) throw new AppError('storage_quote_invalid', 'this quote expired (quotes hold for 15 minutes): ask for a new quote', { param: 'quoteId' });
    if (request.quotaVersion !== quote.quota_version) throw new AppError('storage_quote_invalid', `quotaVersion ${request.quotaVersion} is not the quote's (${quote.quota_version})`, { param: 'quotaVersion' });
    const current = await this.#store.findSubscription(tx, userId);
    if ((current?.version ?? 0) !== quote.quota_version) {
      throw new AppError('version_conflict', `your storage subscription changed since this quote (version ${current?.version ?? 0}, quoted on ${quote.quota_version}): ask for a new quote`, { param: 'quotaVersion' });
    }
    const plan = this.#catalog.find(quote.plan_id);
    if (!plan || !(await this.#store.markQuoteUsed(tx, quote.id, now))) throw new AppError('storage_quote_invalid', 'this quote cannot be used: ask for a new quote', { param: 'quoteId' });

    const autoRenew = request.autoRenew ? 1 : 0;
    const changed = await applyChange(this.#store, tx, payer, current, quote, plan, autoRenew, now);
    if (!changed) throw new AppError('version_conflict', 'your storage subscription changed meanwhile: ask for a new quote', { param: 'quotaVersion' });

    let charge: StorageChargeView | null = null;
    if (quote.amount_micro > 0) {
      const chargeRow = {
        id: newId('stc', now),
        user_id: userId,
        plan_id: plan.id,
        charge_kind: quote.change_kind === 'new' ? 'subscribe' : quote.change_kind,
        amount_micro: quote.amount_micro,
        period_start: quote.period_start,
        period_end: quote.period_end,
        reference: `storage:${quote.id}`,
        created_at: now,
        api_key_id: keyId,
      };
      await this.#ledger.post(
        tx,
        { userId, kind: 'storage_charge', reference: chargeRow.reference, amountMicro: -chargeRow.amount_micro, note: `${plan.name} storage: ${chargeRow.charge_kind}`, apiKeyId: keyId },
        now,
      );
      await this.#store.recordCharge(tx, chargeRow);
      charge = presentCharge(chargeRow);
    }
    const after = await this.#store.findSubscription(tx, userId);
    if (!after) throw new Error('the storage subscription vanished inside its own transaction');
    return { subscription: presentSubscription(after, this.#catalog), charge };
  }

  /** Turns renewal on or off (off keeps the files and the paid capacity until the period ends). */
  async setAutoRenew(payer: StoragePayer, body: unknown): Promise<StorageSubscriptionView> {
    const { userId } = payer;
    const fields = fieldsOf(body, ['autoRenew', 'expectedVersion']);
    if (typeof fields.autoRenew !== 'boolean') throw invalidInput('autoRenew is required (boolean)', 'autoRenew');
    const expected = fields.expectedVersion;
    if (typeof expected !== 'number' || !Number.isSafeInteger(expected) || expected < 1) throw invalidInput('expectedVersion is required: the version of the subscription', 'expectedVersion');
    const current = await this.#store.findSubscription(this.#uow.direct, userId);
    if (!current) throw new AppError('not_found', 'you have no storage subscription');
    if (current.status !== 'active') throw new AppError('storage_plan_required', `the subscription is ${current.status}: pay with a quote to renew it`);
    if (!(await this.#store.changeSubscriptionAtVersion(this.#uow.direct, userId, expected, { auto_renew: fields.autoRenew ? 1 : 0, api_key_id: payer.keyId, updated_at: this.#now() }))) {
      throw new AppError('version_conflict', `expectedVersion ${expected} is stale (the subscription is at version ${current.version})`, { param: 'expectedVersion' });
    }
    const after = await this.#store.findSubscription(this.#uow.direct, userId);
    if (!after) throw new AppError('not_found', 'you have no storage subscription');
    return presentSubscription(after, this.#catalog);
  }
}

interface PricedChange {
  kind: ReturnType<typeof changeKind>;
  amountMicro: number;
  period: { start: number; end: number };
}

/** What a change to `plan` costs now, and the period it pays for. */
export function priceChange(current: StorageSubscriptionRow | undefined, plan: StoragePlan, now: number, catalog: StoragePlanCatalog): PricedChange {
  const kind = changeKind(current && { planId: current.plan_id, status: current.status, periodStart: current.period_start, periodEnd: current.period_end }, plan, catalog);
  if (kind === 'new' || !current) return { kind: 'new', amountMicro: plan.monthlyPriceMicro, period: { start: now, end: periodEnd(now, 0) } };
  const nextPeriod = { start: current.period_end, end: periodEnd(current.anchor_at, current.period_index + 1) };
  const fits = () => {
    if (current.used_bytes > plan.quotaBytes) {
      throw new AppError('storage_quota_exceeded', `your files use ${current.used_bytes} bytes, more than the ${plan.quotaBytes} of ${plan.name}: delete files or choose a larger plan`, { param: 'planId' });
    }
  };
  switch (kind) {
    case 'reactivate':
      fits();
      return { kind, amountMicro: plan.monthlyPriceMicro, period: nextPeriod };
    case 'upgrade': {
      const from = catalog.find(current.plan_id)?.monthlyPriceMicro ?? 0;
      const period = { start: current.period_start, end: current.period_end };
      return { kind, amountMicro: prorateUpgrade(from, plan.monthlyPriceMicro, period, now), period: { start: now, end: current.period_end } };
    }
    case 'downgrade':
      fits();
      return { kind, amountMicro: 0, period: nextPeriod };
    default:
      return { kind, amountMicro: 0, period: { start: current.period_start, end: current.period_end } };
  }
}

async function applyChange(
  store: StorageStore,
  tx: StoreTransaction,
  payer: StoragePayer,
  current: StorageSubscriptionRow | undefined,
  quote: StorageQuoteRow,
  plan: StoragePlan,
  autoRenew: number,
  now: number,
): Promise<boolean> {
  const userId = payer.userId;
  // Whoever makes a choice about the plan (pays, changes it or sets renewal) is who its renewals are charged through.
  const renewalKey = { api_key_id: payer.keyId };
  const fresh = { ...renewalKey, plan_id: plan.id, next_plan_id: null, quota_bytes: plan.quotaBytes, auto_renew: autoRenew, status: 'active' as const, grace_ends_at: null, updated_at: now };
  if (!current) {
    return store.createSubscription(tx, {
      user_id: userId,
      ...fresh,
      used_bytes: 0,
      anchor_at: quote.period_start,
      period_index: 0,
      period_start: quote.period_start,
      period_end: quote.period_end,
      version: 1,
      created_at: now,
    });
  }
  switch (quote.change_kind) {
    case 'new':
      return store.changeSubscriptionAtVersion(tx, userId, current.version, { ...fresh, used_bytes: 0, anchor_at: quote.period_start, period_index: 0, period_start: quote.period_start, period_end: quote.period_end });
    case 'reactivate':
      return store.changeSubscriptionAtVersion(tx, userId, current.version, { ...fresh, period_index: current.period_index + 1, period_start: quote.period_start, period_end: quote.period_end });
    case 'upgrade':
      return store.changeSubscriptionAtVersion(tx, userId, current.version, { ...fresh });
    case 'downgrade':
      return store.changeSubscriptionAtVersion(tx, userId, current.version, { ...renewalKey, next_plan_id: plan.id, auto_renew: autoRenew, updated_at: now });
    default:
      return store.changeSubscriptionAtVersion(tx, userId, current.version, { ...renewalKey, next_plan_id: null, auto_renew: autoRenew, updated_at: now });
  }
}
