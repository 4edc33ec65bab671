import { AppError, invalidInput } from '../domain/errors.ts';
import { creditReference } from '../domain/ledger/ledger-kinds.ts';
import type { AccountStore } from '../ports/account-store.port.ts';
import type { LedgerBook, PostedEntry } from '../ports/ledger.port.ts';
import type { UnitOfWork } from '../ports/unit-of-work.port.ts';
import { IDEMPOTENCY_KEY } from '../domain/idempotency-key.ts';

export interface CreditRequest {
  userId: string;
  amountMicro: number;
  note: string | null;
  idempotencyKey: string;
}

/** What a credit is built on: the users, the book and their transactions. */
export interface CreditPorts {
  accounts: AccountStore;
  ledger: LedgerBook;
  uow: UnitOfWork;
}

/**
 * An operator's credit (or, with a negative amount, a correction that cannot overdraw). The
 * Idempotency-Key makes it happen once: a retry with the same key and body returns the first entry; the
 * same key with another amount or note is refused.
 */
export async function grantCredit(ports: CreditPorts, request: CreditRequest): Promise<PostedEntry> {
  if (!IDEMPOTENCY_KEY.test(request.idempotencyKey)) {
    throw invalidInput('the Idempotency-Key header is required: 1 to 200 visible ASCII characters', 'Idempotency-Key');
  }
  if (!Number.isSafeInteger(request.amountMicro) || request.amountMicro === 0) {
    throw invalidInput('amountCents must be a non-zero integer', 'amountCents');
  }
  const reference = creditReference(request.userId, request.idempotencyKey);
  const sameBody = (entry: { amount_micro: number; note: string | null }) =>
    entry.amount_micro === request.amountMicro && entry.note === request.note;

  const { accounts, ledger, uow } = ports;
  const earlier = await ledger.find(uow.direct, 'credit', reference);
  if (earlier) {
    if (!sameBody(earlier)) throw new AppError('idempotency_key_reused', 'this Idempotency-Key was used with a different body');
    return { entry: earlier, created: false };
  }
  if (!(await accounts.findUser(uow.direct, request.userId))) throw new AppError('user_not_found', 'user not found');
  const posted = await uow.transaction((tx) =>
    ledger.post(tx, { userId: request.userId, kind: 'credit', reference, amountMicro: request.amountMicro, note: request.note }),
  );
  // A concurrent retry may have won the race with another body.
  if (!posted.created && !sameBody(posted.entry)) {
    throw new AppError('idempotency_key_reused', 'this Idempotency-Key was used with a different body');
  }
  return posted;
}
