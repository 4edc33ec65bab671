import type { Logger } from 'pino';
import type { AbuseLimits, PaymentsConfig } from '../../config/config.types.ts';
import type { AccountStore } from '../../ports/account-store.port.ts';
import type { BillingStore } from '../../ports/billing-store.port.ts';
import type { LedgerBook } from '../../ports/ledger.port.ts';
import type { PaymentProvider } from '../../ports/payment-provider.port.ts';
import type { RateLimiter } from '../../ports/rate-limiter.port.ts';
import type { UnitOfWork } from '../../ports/unit-of-work.port.ts';
import { AccountLedgerService } from './account-ledger.service.ts';
import { RedeemCodesService } from './redeem-codes.service.ts';
import { TopupsService } from './topups.service.ts';

/** Money in, and the user's own view of the books. */
export interface BillingServices {
  topups: TopupsService;
  redeemCodes: RedeemCodesService;
  accountLedger: AccountLedgerService;
}

/** The dashboard page that takes money in; the 402 messages and the checkout's return URLs point to it. */
export const BILLING_PATH = '/billing';

export function buildBillingServices(deps: {
  billing: BillingStore;
  accounts: AccountStore;
  ledger: LedgerBook;
  uow: UnitOfWork;
  provider: PaymentProvider | undefined;
  config: PaymentsConfig;
  publicBaseUrl: () => string;
  logger: Logger;
  limiter: RateLimiter;
  limits: AbuseLimits;
}): BillingServices {
  return {
    topups: new TopupsService({
      billing: deps.billing,
      accounts: deps.accounts,
      ledger: deps.ledger,
      uow: deps.uow,
      provider: deps.provider,
      config: deps.config,
      billingUrl: () => `${deps.publicBaseUrl()}${BILLING_PATH}`,
      logger: deps.logger,
      limiter: deps.limiter,
      checkoutsPerUser: deps.limits.checkoutsPerUser,
    }),
    redeemCodes: new RedeemCodesService({ billing: deps.billing, ledger: deps.ledger, uow: deps.uow }, deps.limiter, { perKey: deps.limits.redeemPerKey, perAccount: deps.limits.redeemPerAccount }),
    accountLedger: new AccountLedgerService(deps.billing, deps.uow),
  };
}
