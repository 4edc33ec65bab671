import { createHash, randomInt } from 'node:crypto';
import type { Kysely } from 'kysely';
import {
  disableRedeemCode,
  findRedeemCode,
  findRedeemCodeByHash,
  insertRedeemCode,
  listRedeemCodes,
  type RedeemCodeRow,
  takeRedemption,
} from '../../adapters/db/repositories/redeem-codes.repository.ts';
import { findEntry } from '../../adapters/db/repositories/ledger.repository.ts';
import type { Schema } from '../../adapters/db/schema.ts';
import { AppError, invalidInput } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import { redeemReference } from '../../domain/ledger/ledger-kinds.ts';
import { type PostedEntry, postLedgerEntry } from '../ledger.service.ts';

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

/**
 * Redeem codes: an operator creates them (amount, how many users may redeem, expiry), a user redeems
 * one once. Only the code's hash is stored, so the code is shown once, when created. A redemption is
 * one transaction: the guarded count (never past the maximum, whatever runs at once) and the
 * `redeem_credit` entry whose (kind, reference) lets each user redeem a code once.
 */
export class RedeemCodesService {
  readonly #db: Kysely<Schema>;

  constructor(db: Kysely<Schema>) {
    this.#db = db;
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
    if (!(await insertRedeemCode(this.#db, row))) throw new AppError('conflict', 'a redeem code with this text already exists', { param: 'code' });
    return { row, code };
  }

  list(limit: number, before?: string): Promise<RedeemCodeRow[]> {
    return listRedeemCodes(this.#db, limit, before);
  }

  async disable(id: string, now: number = Date.now()): Promise<RedeemCodeRow> {
    const row = await disableRedeemCode(this.#db, id, now);
    if (!row) throw new AppError('not_found', 'no such redeem code');
    return row;
  }

  async redeem(userId: string, code: string, now: number = Date.now()): Promise<PostedEntry> {
    if (typeof code !== 'string' || normalizeCode(code).length === 0) throw invalidInput('code is required', 'code');
    const found = await findRedeemCodeByHash(this.#db, hashCode(code));
    if (!found) throw new AppError('not_found', 'this redeem code does not exist: check it and try again', { param: 'code' });
    const reference = redeemReference(found.id, userId);
    if (await findEntry(this.#db, 'redeem_credit', reference)) throw alreadyRedeemed();
    return this.#db.transaction().execute(async (tx) => {
      if (!(await takeRedemption(tx, found.id, now))) throw whyNotUsable((await findRedeemCode(tx, found.id)) ?? found, now);
      const posted = await postLedgerEntry(tx, { userId, kind: 'redeem_credit', reference, amountMicro: found.amount_micro, note: `redeem code …${found.code_hint}` }, now);
      // A concurrent redemption by the same user won: throwing rolls back the count taken above.
      if (!posted.created) throw alreadyRedeemed();
      return posted;
    });
  }
}

function alreadyRedeemed(): AppError {
  return new AppError('redeem_code_already_redeemed', 'you have already redeemed this code', { param: 'code' });
}

function whyNotUsable(row: RedeemCodeRow, now: number): AppError {
  if (row.disabled_at !== null) return new AppError('redeem_code_expired', 'this redeem code has been withdrawn', { param: 'code' });
  if (row.expires_at !== null && row.expires_at <= now) return new AppError('redeem_code_expired', 'this redeem code has expired', { param: 'code' });
  return new AppError('redeem_code_used_up', 'this redeem code has been used the maximum number of times', { param: 'code' });
}
