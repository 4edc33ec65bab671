/** The payments tables as Kysely sees them: the rows of ports/store-rows/payments.rows.ts, with the columns the database fills. */
import type { Stored } from './stored.ts';
import type { PaymentCheckoutsRow, RedeemCodesRow } from '../../../ports/store-rows/payments.rows.ts';

export type PaymentCheckoutsTable = PaymentCheckoutsRow;
export type RedeemCodesTable = Stored<RedeemCodesRow, 'redemptions'>;

export interface PaymentTables {
  payment_checkouts: PaymentCheckoutsTable;
  redeem_codes: RedeemCodesTable;
}
