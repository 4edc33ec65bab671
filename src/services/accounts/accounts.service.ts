import type { Kysely } from 'kysely';
import { findUserByEmail, findUserById, insertUser, type UserRow } from '../../adapters/db/repositories/users.repository.ts';
import type { Schema } from '../../adapters/db/schema.ts';
import { AppError, invalidInput } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import { newWebhookSecret } from '../../domain/webhook-secret.ts';
import { postLedgerEntry } from '../ledger.service.ts';

export interface NewUser {
  email?: string | null;
  balanceMicro?: number;
  isAdmin?: boolean;
  passwordHash?: string | null;
}

const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,255}$/;

/** Creates a user and, when it starts with money, the ledger entry that explains the balance. */
export async function createUser(db: Kysely<Schema>, input: NewUser, now: number = Date.now()): Promise<UserRow> {
  const email = input.email ? normalizeEmail(input.email) : null;
  const balance = input.balanceMicro ?? 0;
  if (!Number.isSafeInteger(balance) || balance < 0) throw invalidInput('balance must be a non-negative whole amount', 'balanceCents');
  const row: UserRow = {
    id: newId('usr', now),
    email,
    password_hash: input.passwordHash ?? null,
    is_admin: input.isAdmin ? 1 : 0,
    balance_micro: 0,
    held_micro: 0,
    webhook_secret: newWebhookSecret(),
    created_at: now,
  };
  return db.transaction().execute(async (tx) => {
    if (email && (await findUserByEmail(tx, email))) throw new AppError('conflict', `a user with email ${email} already exists`);
    await insertUser(tx, row);
    if (balance > 0) {
      await postLedgerEntry(tx, { userId: row.id, kind: 'initial_credit', reference: row.id, amountMicro: balance, note: 'opening balance' }, now);
    }
    return { ...row, balance_micro: balance };
  });
}

export async function getUser(db: Kysely<Schema>, id: string): Promise<UserRow> {
  const user = await findUserById(db, id);
  if (!user) throw new AppError('user_not_found', 'user not found');
  return user;
}

export function normalizeEmail(email: string): string {
  const trimmed = email.trim().toLowerCase();
  if (!EMAIL.test(trimmed)) throw invalidInput(`email must be an address like name@example.com, got ${JSON.stringify(email)}`, 'email');
  return trimmed;
}
