/**
 * What a new account asks for, checked before anything is written: the one set of rules for sign-up,
 * the operator's `users create`, the admin API and the demo user.
 */
import { invalidInput } from '../errors.ts';

export interface NewUser {
  email?: string | null;
  balanceMicro?: number;
  isAdmin?: boolean;
  passwordHash?: string | null;
}

/** A new account, checked: what the account store opens. */
export interface NewAccount {
  /** Normalised (normalizeEmail), or null for an account without one. */
  email: string | null;
  passwordHash: string | null;
  isAdmin: boolean;
  /** Credited by an `initial_credit` ledger entry when above zero, so the balance is explained. */
  openingBalanceMicro: number;
}

const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,255}$/;

export function normalizeEmail(email: string): string {
  const trimmed = email.trim().toLowerCase();
  if (!EMAIL.test(trimmed)) throw invalidInput(`email must be an address like name@example.com, got ${JSON.stringify(email)}`, 'email');
  return trimmed;
}

/** Checks a new user's input (throws invalid_input) and normalises its email. */
export function newAccountOf(input: NewUser): NewAccount {
  const email = input.email ? normalizeEmail(input.email) : null;
  const balance = input.balanceMicro ?? 0;
  if (!Number.isSafeInteger(balance) || balance < 0) throw invalidInput('balance must be a non-negative whole amount', 'balanceCents');
  return { email, passwordHash: input.passwordHash ?? null, isAdmin: input.isAdmin === true, openingBalanceMicro: balance };
}
