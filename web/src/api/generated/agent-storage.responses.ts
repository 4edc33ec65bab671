/**
 * Generated from the gateway's OpenAPI document (GET /api/v1/openapi.json) by npm run gen:web-types
 * (scripts/gen-web-api-types.ts). Do not edit: change the route's response schema under src/http/routes
 * and regenerate. test/unit/web/web-api-types.test.ts fails while this file is not current.
 */

/** The body of each of these operations' successful JSON answer, by `METHOD /path`. */
export interface AgentStorageResponses {
  /** The monthly storage plans */
  'GET /api/v1/agent/storage/plans': {
    code: number;
    data: {
      plans: {
        planId: string;
        name: string;
        quotaBytes: number;
        /** The monthly price (decimal integer string of micro-USD; 1000000 = USD 1) */
        priceMicroUsd: string;
        interval: 'month';
      }[];
    };
  };
  /** Your storage subscription (null when none) and its latest charges */
  'GET /api/v1/agent/storage/subscription': {
    code: number;
    data: {
      subscription: {
        planId: string;
        planName: string;
        /** A downgrade that takes effect at the next renewal */
        nextPlanId: string | null;
        /** grace: the period ended unpaid; files can be read and exported, not added, until graceEndsAt; lapsed: files deleted */
        status: 'active' | 'grace' | 'lapsed';
        quotaBytes: number;
        usedBytes: number;
        autoRenew: boolean;
        currentPeriod: {
          start: string;
          end: string;
        };
        renewsAt: string | null;
        nextRenewalMicroUsd: string | null;
        graceEndsAt: string | null;
        /** The quotaVersion of quotes and subscribe */
        version: number;
      } | null;
      charges: {
        chargeId: string;
        planId: string;
        kind: 'subscribe' | 'reactivate' | 'upgrade' | 'renewal';
        /** What was charged (decimal integer string of micro-USD; 1000000 = USD 1) */
        amountMicroUsd: string;
        period: {
          start: string;
          end: string;
        };
        createdAt: string;
      }[];
    };
  };
  /** Turn renewal on or off */
  'PATCH /api/v1/agent/storage/subscription': {
    code: number;
    data: {
      planId: string;
      planName: string;
      /** A downgrade that takes effect at the next renewal */
      nextPlanId: string | null;
      /** grace: the period ended unpaid; files can be read and exported, not added, until graceEndsAt; lapsed: files deleted */
      status: 'active' | 'grace' | 'lapsed';
      quotaBytes: number;
      usedBytes: number;
      autoRenew: boolean;
      currentPeriod: {
        start: string;
        end: string;
      };
      renewsAt: string | null;
      nextRenewalMicroUsd: string | null;
      graceEndsAt: string | null;
      /** The quotaVersion of quotes and subscribe */
      version: number;
    };
  };
  /** Price a plan for you now: amount, balance after payment, period */
  'POST /api/v1/agent/storage/quote': {
    code: number;
    data: {
      quoteId: string;
      planId: string;
      change: 'new' | 'reactivate' | 'upgrade' | 'downgrade' | 'unchanged';
      /** Charged on subscribe: a month for new and reactivate, the prorated difference for an upgrade, 0 otherwise (decimal integer string of micro-USD; 1000000 = USD 1) */
      amountMicroUsd: string;
      /** The spendable balance now (decimal integer string of micro-USD; 1000000 = USD 1) */
      balanceMicroUsd: string;
      /** The balance after paying (negative: top up first) */
      balanceAfterMicroUsd: string;
      /** What the amount pays for (a downgrade: the period it starts) */
      period: {
        start: string;
        end: string;
      };
      quotaVersion: number;
      expiresAt: string;
    };
  };
  /** Carry out a quote: the charge is a ledger entry like any other */
  'POST /api/v1/agent/storage/subscribe': {
    code: number;
    data: {
      subscription: {
        planId: string;
        planName: string;
        /** A downgrade that takes effect at the next renewal */
        nextPlanId: string | null;
        /** grace: the period ended unpaid; files can be read and exported, not added, until graceEndsAt; lapsed: files deleted */
        status: 'active' | 'grace' | 'lapsed';
        quotaBytes: number;
        usedBytes: number;
        autoRenew: boolean;
        currentPeriod: {
          start: string;
          end: string;
        };
        renewsAt: string | null;
        nextRenewalMicroUsd: string | null;
        graceEndsAt: string | null;
        /** The quotaVersion of quotes and subscribe */
        version: number;
      };
      charge: {
        chargeId: string;
        planId: string;
        kind: 'subscribe' | 'reactivate' | 'upgrade' | 'renewal';
        /** What was charged (decimal integer string of micro-USD; 1000000 = USD 1) */
        amountMicroUsd: string;
        period: {
          start: string;
          end: string;
        };
        createdAt: string;
      } | null;
    };
  };
  /** Copy a generation's file or an artifact into paid storage (202: accepted, not yet copied) */
  'POST /api/v1/agent/storage/retain': {
    code: number;
    data: {
      operationId: string;
      status: 'pending' | 'completed' | 'failed';
      type: 'retain' | 'import';
    };
  };
  /** A storage operation (retain or asset import): pending, completed with its file, or failed with why */
  'GET /api/v1/agent/storage/operations/{operationId}': {
    code: number;
    data: {
      operationId: string;
      type: 'retain' | 'import';
      status: 'pending' | 'completed' | 'failed';
      source: {
        type: 'generation' | 'artifact' | 'upload';
        id: string;
        outputIndex: number | null;
      };
      projectId: string | null;
      role: string | null;
      file: {
        fileId: string;
        name: string;
        mime: string;
        sizeBytes: number;
        /** A public object URL: anyone holding it can read the file until it is deleted */
        url: string;
        kind: 'retained' | 'project_asset';
        projectId: string | null;
        source: {
          type: 'generation' | 'artifact' | 'upload';
          id: string;
          outputIndex: number | null;
        };
        createdAt: string;
      } | null;
      error: {
        code: string;
        message: string;
      } | null;
      createdAt: string;
      finishedAt: string | null;
    };
  };
  /** Your files in paid storage, newest first (cursor pages) */
  'GET /api/v1/agent/storage/files': {
    code: number;
    data: {
      items: {
        fileId: string;
        name: string;
        mime: string;
        sizeBytes: number;
        /** A public object URL: anyone holding it can read the file until it is deleted */
        url: string;
        kind: 'retained' | 'project_asset';
        projectId: string | null;
        source: {
          type: 'generation' | 'artifact' | 'upload';
          id: string;
          outputIndex: number | null;
        };
        createdAt: string;
      }[];
      nextCursor: string | null;
    };
  };
  /** One of your files */
  'GET /api/v1/agent/storage/files/{fileId}': {
    code: number;
    data: {
      fileId: string;
      name: string;
      mime: string;
      sizeBytes: number;
      /** A public object URL: anyone holding it can read the file until it is deleted */
      url: string;
      kind: 'retained' | 'project_asset';
      projectId: string | null;
      source: {
        type: 'generation' | 'artifact' | 'upload';
        id: string;
        outputIndex: number | null;
      };
      createdAt: string;
    };
  };
}
