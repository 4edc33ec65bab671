/** Rows of the payments tables, as the store ports hand them out. */
import type { CheckoutStatus } from '../../domain/payments/checkout-status.ts';

/** A top-up started at the payment provider (migration 016); its credit is the `topup_credit` ledger entry. */
export interface PaymentCheckoutsRow {
  id: string;
  user_id: string;
  /** The payment provider's name (`stripe`). */
  provider: string;
  idempotency_key: string;
  /** The provider's checkout session id; null until the provider answered. */
  session_id: string | null;
  /** The provider's hosted payment page. */
  url: string | null;
  amount_micro: number;
  status: CheckoutStatus;
  created_at: number;
  /** When it became paid, expired, failed or review. */
  completed_at: number | null;
  /** What the provider said was paid, in its currency's minor unit, when that differed (migration 026). */
  paid_amount_minor: number | null;
  paid_currency: string | null;
}

/** A code an operator created; only the SHA-256 of the normalised code is stored. */
export interface RedeemCodesRow {
  id: string;
  code_hash: string;
  /** The code's last characters, so an operator can tell codes apart. */
  code_hint: string;
  amount_micro: number;
  max_redemptions: number;
  /** Filled by the store when a new row leaves it out. */
  redemptions: number;
  expires_at: number | null;
  disabled_at: number | null;
  note: string | null;
  created_at: number;
}
