/** GET /api/v1/billing and friends: amounts are micro-USD decimal strings. */
export interface BillingCheckout {
  id: string;
  status: 'created' | 'paid' | 'expired' | 'failed' | 'review';
  amountCents: number;
  amountMicroUsd: string;
  url: string | null;
  createdAt: string;
  completedAt: string | null;
}

export interface BillingSummary {
  balanceMicroUsd: string;
  heldMicroUsd: string;
  availableMicroUsd: string;
  holds: Array<{ chatRequestId: string; model: string; amountMicroUsd: string; createdAt: string; agentConversationId: string | null }>;
  agentRuns: Array<{ runId: string; conversationId: string; status: string; limitMicroUsd: string; settledMicroUsd: string; committedMicroUsd: string }>;
  topups: { enabled: boolean; minCents: number; maxCents: number };
  recentCheckouts: BillingCheckout[];
}

export interface LedgerLink {
  type: 'generation' | 'chat_request' | 'topup' | 'redeem_code' | 'storage' | 'credit';
  id: string | null;
  agentConversationId?: string | null;
  checkoutId?: string | null;
}

export interface AccountLedgerEntry {
  id: string;
  kind: string;
  amountMicroUsd: string;
  balanceAfterMicroUsd: string;
  note: string | null;
  createdAt: string;
  link: LedgerLink;
}

export interface RedeemCode {
  id: string;
  code?: string;
  codeHint: string;
  amountCents: number;
  maxRedemptions: number;
  redemptions: number;
  expiresAt: string | null;
  disabledAt: string | null;
  note: string | null;
  createdAt: string;
  status: 'active' | 'used_up' | 'expired' | 'disabled';
}
