/**
 * Generated from the gateway's OpenAPI document (GET /api/v1/openapi.json) by npm run gen:web-types
 * (scripts/gen-web-api-types.ts). Do not edit: change the route's response schema under src/http/routes
 * and regenerate. test/unit/web/web-api-types.test.ts fails while this file is not current.
 */

/** The body of each of these operations' successful JSON answer, by `METHOD /path`. */
export interface BillingResponses {
  /** Balance, money held by running requests, what is available, and top-up settings */
  'GET /api/v1/billing': {
    code: number;
    data: {
      /** Money on the account (the sum of the ledger) */
      balanceMicroUsd: string;
      /** Reserved by requests still running (chat requests, agent model calls) */
      heldMicroUsd: string;
      /** What new requests can spend: balance less held */
      availableMicroUsd: string;
      holds: {
        chatRequestId: string;
        model: string;
        amountMicroUsd: string;
        createdAt: string;
        agentConversationId: string | null;
      }[];
      /** Agent runs not ended, with their budget: settled charges and commitments of operations in flight, within the run limit */
      agentRuns: {
        runId: string;
        conversationId: string;
        status: string;
        limitMicroUsd: string;
        settledMicroUsd: string;
        committedMicroUsd: string;
      }[];
      topups: {
        enabled: boolean;
        minCents: number;
        maxCents: number;
      };
      recentCheckouts: {
        id: string;
        /** `review`: paid with another amount than opened; nothing credited until the operator decides */
        status: 'created' | 'paid' | 'expired' | 'failed' | 'review';
        amountCents: number;
        /** The amount credited when paid, integer micro-USD as a decimal string */
        amountMicroUsd: string;
        /** The payment page to send the payer to */
        url: string | null;
        createdAt: string;
        completedAt: string | null;
      }[];
    };
  };
  /** Your ledger, newest first: credits, top-ups, charges and refunds, each with what it is about */
  'GET /api/v1/billing/ledger': {
    code: number;
    data: {
      items: {
        id: string;
        /** credit, initial_credit, topup_credit, redeem_credit, generation_debit, generation_refund, chat_charge, … */
        kind: string;
        /** Signed: positive adds money, integer micro-USD as a decimal string */
        amountMicroUsd: string;
        /** The balance right after this entry, integer micro-USD as a decimal string */
        balanceAfterMicroUsd: string;
        note: string | null;
        createdAt: string;
        /** On an organization's account: the member whose key or session moved the money; null on a person's account */
        memberId: string | null;
        /** What the entry is about: a generation task, a chat request (and the agent conversation that made it), a top-up or a redeem code */
        link: {
          type: 'generation' | 'chat_request' | 'topup' | 'redeem_code' | 'storage' | 'credit';
          id: string | null;
          agentConversationId?: string | null;
          checkoutId?: string | null;
          /** chat_request: the model the request asked for */
          model?: string | null;
        };
      }[];
      nextCursor: string | null;
    };
  };
  /** Start a top-up: a checkout at the payment provider; send the payer to its url */
  'POST /api/v1/billing/checkout': {
    code: number;
    data: {
      id: string;
      /** `review`: paid with another amount than opened; nothing credited until the operator decides */
      status: 'created' | 'paid' | 'expired' | 'failed' | 'review';
      amountCents: number;
      /** The amount credited when paid, integer micro-USD as a decimal string */
      amountMicroUsd: string;
      /** The payment page to send the payer to */
      url: string | null;
      createdAt: string;
      completedAt: string | null;
    };
  };
  /** One of your top-ups, to learn whether it was paid */
  'GET /api/v1/billing/checkout/{checkoutId}': {
    code: number;
    data: {
      id: string;
      /** `review`: paid with another amount than opened; nothing credited until the operator decides */
      status: 'created' | 'paid' | 'expired' | 'failed' | 'review';
      amountCents: number;
      /** The amount credited when paid, integer micro-USD as a decimal string */
      amountMicroUsd: string;
      /** The payment page to send the payer to */
      url: string | null;
      createdAt: string;
      completedAt: string | null;
    };
  };
  /** Redeem a code: its amount is credited once per user */
  'POST /api/v1/billing/redeem': {
    code: number;
    data: {
      id: string;
      userId: string;
      kind: string;
      reference: string;
      /** Signed integer micro-USD */
      amountMicroUsd: string;
      /** Signed USD cents (may be fractional) */
      amountCents: number;
      balanceAfterMicroUsd: string;
      balanceAfterCents: number;
      note: string | null;
      createdAt: string;
    };
  };
}
