import type { Kysely } from 'kysely';
import type { AccountStore } from '../../../ports/account-store.port.ts';
import type { AuthStore } from '../../../ports/auth-store.port.ts';
import type { BillingStore } from '../../../ports/billing-store.port.ts';
import type { LedgerBook } from '../../../ports/ledger.port.ts';
import type { UnitOfWork } from '../../../ports/unit-of-work.port.ts';
import { kyselyLedgerBook } from '../ledger/ledger-book.ts';
import type { Schema } from '../schema.ts';
import { KyselyAccountStore } from './account-store.ts';
import { kyselyAuthStore } from './auth-store.ts';
import { kyselyBillingStore } from './billing-store.ts';
import { kyselyUnitOfWork } from './kysely-unit-of-work.ts';

/** The ports of accounts, sign-in and billing over one Kysely handle. */
export interface AccountPortsOverKysely {
  accounts: AccountStore;
  auth: AuthStore;
  billing: BillingStore;
  ledger: LedgerBook;
  uow: UnitOfWork;
}

/**
 * Builds them once for the composition root, the CLI and tests that hold the raw database; the
 * stores are stateless, so two sets over one handle behave as one.
 */
export function accountPortsOf(db: Kysely<Schema>): AccountPortsOverKysely {
  return {
    accounts: new KyselyAccountStore(kyselyLedgerBook),
    auth: kyselyAuthStore,
    billing: kyselyBillingStore,
    ledger: kyselyLedgerBook,
    uow: kyselyUnitOfWork(db),
  };
}
