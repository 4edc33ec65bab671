import { type NewUser, newAccountOf } from '../../domain/accounts/new-account.ts';
import type { AccountStore, UserRow } from '../../ports/account-store.port.ts';
import type { UnitOfWork } from '../../ports/unit-of-work.port.ts';

export { type NewUser, normalizeEmail } from '../../domain/accounts/new-account.ts';

/** What the account services are built on: the account store and its transactions. */
export interface AccountPorts {
  accounts: AccountStore;
  uow: UnitOfWork;
}

/** Creates a user and, when it starts with money, the ledger entry that explains the balance, in one transaction. */
export function createUser(ports: AccountPorts, input: NewUser, now: number = Date.now()): Promise<UserRow> {
  const account = newAccountOf(input);
  return ports.uow.transaction((tx) => ports.accounts.openAccount(tx, account, now));
}
