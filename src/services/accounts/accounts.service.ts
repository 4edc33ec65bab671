import { type NewUser, newAccountOf } from '../../domain/accounts/new-account.ts';
import { AppError } from '../../domain/errors.ts';
import type { AccountStore, UserRow } from '../../ports/account-store.port.ts';
import type { StoreTransaction } from '../../ports/store-transaction.port.ts';
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

/** The user, or user_not_found; in `tx` when given (a snapshot's reads), else on its own. */
export async function getUser(ports: AccountPorts, id: string, tx: StoreTransaction = ports.uow.direct): Promise<UserRow> {
  const user = await ports.accounts.findUser(tx, id);
  if (!user) throw new AppError('user_not_found', 'user not found');
  return user;
}
