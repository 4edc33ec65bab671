import { createHash, randomInt } from 'node:crypto';
import type { BillingStore, RedeemCodeRow } from '../../ports/billing-store.port.ts';
import type { LedgerBook, PostedEntry } from '../../ports/ledger.port.ts';
import type { UnitOfWork } from '../../ports/unit-of-work.port.ts';
import type { RateLimitSetting } from '../../config/config.types.ts';
import { AppError, invalidInput } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import { redeemReference } from '../../domain/ledger/ledger-kinds.ts';
import { type RateLimiter, retryAfterSeconds } from '../../ports/rate-limiter.port.ts';

/** Letters and digits a person reads back without confusion (no 0/O, 1/I/L). */
const CODE_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
/** 16 characters of 31: about 79 bits, beyond guessing through an HTTP endpoint. */
const GENERATED_LENGTH = 16;
/** An operator's own code (`LAUNCH-2026`): 6 to 64 letters, digits, - and _. */
const OWN_CODE = /^[A-Za-z0-9_-]{6,64}$/;

export interface NewRedeemCode {
  amountMicro: number;
  maxRedemptions: number;
  expiresAt: number | null;
  note: string | null;
  /** The operator's own code; generated when absent. */
  code?: string | undefined;
}

/** Case, spaces and dashes do not matter when a code is typed back. */
export function normalizeCode(code: string): string {
  return code.toUpperCase().replace(/[\s-]/g, '');
}

export function hashCode(code: string): string {
  return createHash('sha256').update(normalizeCode(code)).digest('hex');
}

function generateCode(): string {
  let raw = '';
  for (let i = 0; i < GENERATED_LENGTH; i++) raw += CODE_ALPHABET[randomInt(CODE_ALPHABET.length)];
  return raw.match(/.{4}/g)?.join('-') ?? raw;
}

/** Who redeems: the account, and the API key (undefined for a dashboard session). */
export interface Redeemer {
  userId: string;
  keyId: string | undefined;
  /** Redeeming for an organization: the member who did (named by the credit's entry). */
  memberId?: string | undefined;
}

/** What redemptions are built on: the codes' store, the book the credit goes to, their transactions. */
export interface RedeemCodesPorts {
  billing: BillingStore;
  ledger: LedgerBook;
  uow: UnitOfWork;
}

export interface RedeemLimits {
  perKey: RateLimitSetting;
  perAccount: RateLimitSetting;
}

/**
 * Redeem codes: an operator creates them (amount, how many users may redeem, expiry), a user redeems
 * one once. Only the code's hash is stored, so the code is shown once, when created. A redemption is
 * one transaction: the guarded count (never past the maximum, whatever runs at once) and the
 * `redeem_credit` entry whose (kind, reference) lets each user redeem a code once.
 *
 * Guessing is bounded: every attempt counts against the key and the account before the code is even
 * looked up (a refused attempt learns nothing), and a code that does not exist, has expired, was
 * withdrawn or is used up gets one and the same answer.
 */
export class RedeemCodesService {
  readonly #ports: RedeemCodesPorts;
  readonly #limiter: RateLimiter;
  readonly #limits: RedeemLimits;

  constructor(ports: RedeemCodesPorts, limiter: RateLimiter, limits: RedeemLimits) {
    this.#ports = ports;
    this.#limiter = limiter;
    this.#limits = limits;
  }

  async create(input: NewRedeemCode, now: number = Date.now()): Promise<{ row: RedeemCodeRow; code: string }> {
    if (!Number.isSafeInteger(input.amountMicro) || input.amountMicro <= 0) throw invalidInput('amountCents must be a positive whole number', 'amountCents');
    if (!Number.isSafeInteger(input.maxRedemptions) || input.maxRedemptions < 1) throw invalidInput('maxRedemptions must be at least 1', 'maxRedemptions');
    if (input.expiresAt !== null && input.expiresAt <= now) throw invalidInput('expiresAt must be in the future', 'expiresAt');
    if (input.code !== undefined && !OWN_CODE.test(input.code)) throw invalidInput('code must be 6 to 64 letters, digits, - or _', 'code');
    const code = input.code ?? generateCode();
    const normalized = normalizeCode(code);
    const row: RedeemCodeRow = {
      id: newId('rcode', now),
      code_hash: hashCode(code),
      code_hint: normalized.slice(-4),
      amount_micro: input.amountMicro,
      max_redemptions: input.maxRedemptions,
      redemptions: 0,
      expires_at: input.expiresAt,
      disabled_at: null,
      note: input.note,
      created_at: now,
    };
    if (!(await this.#ports.billing.addRedeemCode(this.#ports.uow.direct, row))) throw new AppError('conflict', 'a redeem code with this text already exists', { param: 'code' });
    return { row, code };
  }

  list(limit: number, before?: string): Promise<RedeemCodeRow[]> {
    return this.#ports.billing.listRedeemCodes(this.#ports.uow.direct, limit, before);
  }

  async disable(id: string, now: number = Date.now()): Promise<RedeemCodeRow> {
    const row = await this.#ports.billing.disableRedeemCode(this.#ports.uow.direct, id, now);
    if (!row) throw new AppError('not_found', 'no such redeem code');
    return row;
  }

  async redeem(redeemer: Redeemer, code: string, now: number = Date.now()): Promise<PostedEntry> {
    if (typeof code !== 'string' || normalizeCode(code).length === 0) throw invalidInput('code is required', 'code');
    const { userId } = redeemer;
    await this.#countAttempt(redeemer);
    const { billing, ledger, uow } = this.#ports;
    const found = await billing.findRedeemCodeByHash(uow.direct, hashCode(code));
    if (!found) throw notRedeemable();
    const reference = redeemReference(found.id, userId);
    // Only someone who redeemed this very code gets this answer: it tells them nothing new.
    if (await ledger.find(uow.direct, 'redeem_credit', reference)) throw alreadyRedeemed();
    return uow.transaction(async (tx) => {
      if (!(await billing.takeRedemption(tx, found.id, now))) throw notRedeemable();
      const posted = await ledger.post(tx, { userId, kind: 'redeem_credit', reference, amountMicro: found.amount_micro, note: `redeem code …${found.code_hint}`, memberId: redeemer.memberId ?? null }, now);
      // A concurrent redemption by the same user won: throwing rolls back the count taken above.
      if (!posted.created) throw alreadyRedeemed();
      return posted;
    });
  }

  /** Counts the attempt against the key and the account; refuses it, before any lookup, past either limit. */
  async #countAttempt({ userId, keyId }: Redeemer): Promise<void> {
    const [byKey, byAccount] = await Promise.all([
      this.#limiter.hit(`redeem:key:${keyId ?? `session:${userId}`}`, this.#limits.perKey),
      this.#limiter.hit(`redeem:user:${userId}`, this.#limits.perAccount),
    ]);
    const refused = [byKey, byAccount].filter((v) => !v.allowed);
    if (refused.length === 0) return;
    const retryAfter = Math.max(...refused.map(retryAfterSeconds));
    throw new AppError('rate_limited', `too many redeem attempts; try again in ${retryAfter} s`, { retryAfter });
  }
}

function alreadyRedeemed(): AppError {
  return new AppError('redeem_code_already_redeemed', 'you have already redeemed this code', { param: 'code' });
}

/** Unknown, expired, withdrawn and used up look the same: a guess learns only "not this one". */
function notRedeemable(): AppError {
  return new AppError('redeem_code_invalid', 'this code cannot be redeemed: it does not exist, has expired or has been used up', { param: 'code' });
}
