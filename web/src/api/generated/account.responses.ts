/**
 * Generated from the gateway's OpenAPI document (GET /api/v1/openapi.json) by npm run gen:web-types
 * (scripts/gen-web-api-types.ts). Do not edit: change the route's response schema under src/http/routes
 * and regenerate. test/unit/web/web-api-types.test.ts fails while this file is not current.
 */

/** The body of each of these operations' successful JSON answer, by `METHOD /path`. */
export interface AccountResponses {
  /** The calling user and balance */
  'GET /api/v1/user/me': {
    code: number;
    data: {
      id: string;
      email: string | null;
      /** USD cents, rounded down */
      balance: number;
      createdAt: string;
    };
  };
  /** List your API keys (by prefix; keys themselves are never shown again). A key that is not a management key lists only itself */
  'GET /api/v1/keys': {
    code: number;
    data: {
      id: string;
      name: string;
      /** First characters of the key */
      prefix: string;
      createdAt: string;
      lastUsedAt: string | null;
      revokedAt: string | null;
      limits: {
        /** Spend cap in micro-USD over everything charged through the key: requests, agent runs it started, storage plans it pays (holds of running requests count against it; 402 key_spend_cap_reached) */
        spendCapMicroUsd: number | null;
        /** 'total' (default) or 'month' (calendar month, UTC) */
        spendCapPeriod: 'total' | 'month' | null;
        /** After this instant the key is invalid (401) */
        expiresAt: string | null;
        /** The only models the key may use, by a request or by an agent run it started (403, or a refused agent operation, otherwise) */
        allowedModels: string[] | null;
        /** Requests per minute, each operation of an agent run it started included (429 with Retry-After) */
        requestsPerMinute: number | null;
        /** Input plus output tokens per minute of its text requests, those of agent runs it started included; a running request counts its prompt and max_tokens until it settles (429 with Retry-After) */
        tokensPerMinute: number | null;
        /** Generations and text requests running at once, those of agent runs it started included (429) */
        concurrentGenerations: number | null;
      };
      /** A management key may manage the keys of its user through /api/v1/keys, within its own limits */
      manageKeys: boolean;
      /** What the key spent in this calendar month (UTC), in micro-USD (the caller's own keys) */
      spendThisMonthMicroUsd?: number;
    }[];
  };
  /** Create an API key (with an API key: a management key, creating a key no wider than itself) */
  'POST /api/v1/keys': {
    code: number;
    data: {
      id: string;
      name: string;
      /** First characters of the key */
      prefix: string;
      createdAt: string;
      lastUsedAt: string | null;
      revokedAt: string | null;
      limits: {
        /** Spend cap in micro-USD over everything charged through the key: requests, agent runs it started, storage plans it pays (holds of running requests count against it; 402 key_spend_cap_reached) */
        spendCapMicroUsd: number | null;
        /** 'total' (default) or 'month' (calendar month, UTC) */
        spendCapPeriod: 'total' | 'month' | null;
        /** After this instant the key is invalid (401) */
        expiresAt: string | null;
        /** The only models the key may use, by a request or by an agent run it started (403, or a refused agent operation, otherwise) */
        allowedModels: string[] | null;
        /** Requests per minute, each operation of an agent run it started included (429 with Retry-After) */
        requestsPerMinute: number | null;
        /** Input plus output tokens per minute of its text requests, those of agent runs it started included; a running request counts its prompt and max_tokens until it settles (429 with Retry-After) */
        tokensPerMinute: number | null;
        /** Generations and text requests running at once, those of agent runs it started included (429) */
        concurrentGenerations: number | null;
      };
      /** A management key may manage the keys of its user through /api/v1/keys, within its own limits */
      manageKeys: boolean;
      /** What the key spent in this calendar month (UTC), in micro-USD (the caller's own keys) */
      spendThisMonthMicroUsd?: number;
      /** Shown only in this response */
      key: string;
    };
  };
  /** Rename an API key or change its limits (absent: unchanged, null: removed); a key never changes itself */
  'PATCH /api/v1/keys/{keyId}': {
    code: number;
    data: {
      id: string;
      name: string;
      /** First characters of the key */
      prefix: string;
      createdAt: string;
      lastUsedAt: string | null;
      revokedAt: string | null;
      limits: {
        /** Spend cap in micro-USD over everything charged through the key: requests, agent runs it started, storage plans it pays (holds of running requests count against it; 402 key_spend_cap_reached) */
        spendCapMicroUsd: number | null;
        /** 'total' (default) or 'month' (calendar month, UTC) */
        spendCapPeriod: 'total' | 'month' | null;
        /** After this instant the key is invalid (401) */
        expiresAt: string | null;
        /** The only models the key may use, by a request or by an agent run it started (403, or a refused agent operation, otherwise) */
        allowedModels: string[] | null;
        /** Requests per minute, each operation of an agent run it started included (429 with Retry-After) */
        requestsPerMinute: number | null;
        /** Input plus output tokens per minute of its text requests, those of agent runs it started included; a running request counts its prompt and max_tokens until it settles (429 with Retry-After) */
        tokensPerMinute: number | null;
        /** Generations and text requests running at once, those of agent runs it started included (429) */
        concurrentGenerations: number | null;
      };
      /** A management key may manage the keys of its user through /api/v1/keys, within its own limits */
      manageKeys: boolean;
      /** What the key spent in this calendar month (UTC), in micro-USD (the caller's own keys) */
      spendThisMonthMicroUsd?: number;
    };
  };
  /** Revoke an API key (takes effect at once, in every process); a management key may revoke itself */
  'DELETE /api/v1/keys/{keyId}': {
    code: number;
    data: {
      id: string;
      name: string;
      /** First characters of the key */
      prefix: string;
      createdAt: string;
      lastUsedAt: string | null;
      revokedAt: string | null;
      limits: {
        /** Spend cap in micro-USD over everything charged through the key: requests, agent runs it started, storage plans it pays (holds of running requests count against it; 402 key_spend_cap_reached) */
        spendCapMicroUsd: number | null;
        /** 'total' (default) or 'month' (calendar month, UTC) */
        spendCapPeriod: 'total' | 'month' | null;
        /** After this instant the key is invalid (401) */
        expiresAt: string | null;
        /** The only models the key may use, by a request or by an agent run it started (403, or a refused agent operation, otherwise) */
        allowedModels: string[] | null;
        /** Requests per minute, each operation of an agent run it started included (429 with Retry-After) */
        requestsPerMinute: number | null;
        /** Input plus output tokens per minute of its text requests, those of agent runs it started included; a running request counts its prompt and max_tokens until it settles (429 with Retry-After) */
        tokensPerMinute: number | null;
        /** Generations and text requests running at once, those of agent runs it started included (429) */
        concurrentGenerations: number | null;
      };
      /** A management key may manage the keys of its user through /api/v1/keys, within its own limits */
      manageKeys: boolean;
      /** What the key spent in this calendar month (UTC), in micro-USD (the caller's own keys) */
      spendThisMonthMicroUsd?: number;
    };
  };
  /** Usage and spend statistics over whole UTC days */
  'GET /api/v1/stats': {
    /** First instant of the period (00:00 UTC of its first day) */
    from: string;
    /** Last instant of the period (23:59:59.999 UTC of its last day) */
    to: string;
    totals: {
      /** Current balance, whole USD cents rounded down */
      balance: number;
      /** USD cents spent in the period (media not refunded, plus chat) */
      spent: number;
      /** USD cents spent ever */
      spentAllTime: number;
      /** Generations created in the period, failed ones included */
      requests: number;
      /** Of those: finished (or finished and since expired) */
      succeeded: number;
      /** Of those: failed (and refunded) */
      failed: number;
      /** Of those: not_started or processing */
      inProgress: number;
      /** Chat requests in the period (both protocols) */
      llmRequests: number;
      /** Their input plus output tokens */
      llmTokens: number;
    };
    /** Every UTC day of the period, ascending; key YYYY-MM-DD */
    byDay: {
      key: string;
      /** Generations (failed included) and chat requests */
      count: number;
      /** USD cents, exact (up to 4 decimals), refunded failures excluded */
      cost: number;
    }[];
    /** Models used in the period, most expensive first */
    byModel: {
      key: string;
      /** Generations (failed included) and chat requests */
      count: number;
      /** USD cents, exact (up to 4 decimals), refunded failures excluded */
      cost: number;
    }[];
    /** Generations, chat requests and storage charges per API key id (key `dashboard`: made from the dashboard), most expensive first; together the period's spend */
    byApiKey?: {
      key: string;
      /** Generations (failed included) and chat requests */
      count: number;
      /** USD cents, exact (up to 4 decimals), refunded failures excluded */
      cost: number;
    }[];
    /** IMAGE, VIDEO, MUSIC and TEXT (chat), always all four, plus STORAGE (paid storage plans) when the period holds a storage charge; most expensive first */
    byType: {
      key: string;
      /** Generations (failed included) and chat requests */
      count: number;
      /** USD cents, exact (up to 4 decimals), refunded failures excluded */
      cost: number;
    }[];
  };
}
