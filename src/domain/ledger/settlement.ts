/**
 * The rules that move money, as pure functions over an account's two figures: its balance and what
 * running requests hold on it (docs/decisions.md, "Holds on the account"). Every implementation of the
 * book (src/adapters/db/ledger/: the SQLite statements, the PostgreSQL function of migration 010, the
 * Kysely book) applies these same rules inside a guarded statement; the contract suite
 * (test/contract/ledger-port.contract.test.ts) runs them on both engines against this file.
 */

/** An account as the rules see it, in micro-USD. */
export interface AccountFigures {
  balanceMicro: number;
  heldMicro: number;
}

/**
 * A movement of `amountMicro` (positive adds, negative takes) is allowed when the balance after it
 * still covers what is held: a debit never spends money a running request has reserved.
 */
export function canMove(account: AccountFigures, amountMicro: number): boolean {
  return account.balanceMicro + amountMicro >= account.heldMicro;
}

/** A hold of `holdMicro` fits when the spendable money (balance less what is held) covers it. */
export function canReserve(account: AccountFigures, holdMicro: number): boolean {
  return account.balanceMicro - account.heldMicro >= holdMicro;
}

/** The account after a hold that fits: the balance unchanged, the hold added to what is held. */
export function reserve(account: AccountFigures, holdMicro: number): AccountFigures {
  return { balanceMicro: account.balanceMicro, heldMicro: account.heldMicro + holdMicro };
}

/**
 * What a chat settlement collects: the cost, unless it is above what the balance covers once this
 * request's hold is released (usage above the hold, when the prompt estimate was short); then exactly
 * what it covers, never below zero. The rest is recorded as uncollected, not charged.
 */
export function collectable(account: AccountFigures, holdMicro: number, costMicro: number): number {
  return Math.max(0, Math.min(costMicro, account.balanceMicro - (account.heldMicro - holdMicro)));
}

/** The account after a settlement: this hold released and `collectedMicro` taken from the balance. */
export function settle(account: AccountFigures, holdMicro: number, collectedMicro: number): AccountFigures {
  return { balanceMicro: account.balanceMicro - collectedMicro, heldMicro: account.heldMicro - holdMicro };
}

/** The account after a release without a charge (an abandoned request): the hold given back in full. */
export function release(account: AccountFigures, holdMicro: number): AccountFigures {
  return settle(account, holdMicro, 0);
}

/**
 * What a commitment within a budget settles at (an agent run's operation): its real cost, never
 * negative, and never more than was committed for it: min(cost, hold).
 */
export function settleWithin(holdMicro: number, costMicro: number): number {
  return Math.min(Math.max(0, costMicro), holdMicro);
}
