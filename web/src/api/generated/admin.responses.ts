/**
 * Generated from the gateway's OpenAPI document (GET /api/v1/openapi.json) by npm run gen:web-types
 * (scripts/gen-web-api-types.ts). Do not edit: change the route's response schema under src/http/routes
 * and regenerate. test/unit/web/web-api-types.test.ts fails while this file is not current.
 */

/** The body of each of these operations' successful JSON answer, by `METHOD /path`. */
export interface AdminResponses {
  /** List users (cursor: the last id of the previous page) */
  'GET /admin/v1/users': {
    data: {
      id: string;
      email: string | null;
      /** USD cents, rounded down */
      balance: number;
      createdAt: string;
      /** Administers the gateway (may use the admin API) */
      isAdmin: boolean;
    }[];
    nextCursor: string | null;
  };
  /** Create a user */
  'POST /admin/v1/users': {
    id: string;
    email: string | null;
    /** USD cents, rounded down */
    balance: number;
    createdAt: string;
  };
  /** One user */
  'GET /admin/v1/users/{userId}': {
    id: string;
    email: string | null;
    /** USD cents, rounded down */
    balance: number;
    createdAt: string;
  };
  /** A user's API keys */
  'GET /admin/v1/users/{userId}/api-keys': {
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
  /** Revoke any API key */
  'DELETE /admin/v1/api-keys/{keyId}': {
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
  /** Set a user's admin role (admin sessions may use the admin API) */
  'PUT /admin/v1/users/{userId}/admin': {
    id: string;
    email: string | null;
    /** USD cents, rounded down */
    balance: number;
    createdAt: string;
    /** Administers the gateway (may use the admin API) */
    isAdmin: boolean;
  };
  /** Credit (or correct) a balance, once per Idempotency-Key */
  'POST /admin/v1/users/{userId}/credits': {
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
  /** A user's ledger, newest first (cursor: the last id of the previous page) */
  'GET /admin/v1/users/{userId}/ledger': {
    userId: string;
    /** Integer micro-USD */
    balanceMicroUsd: string;
    /** Reserved by requests still running, integer micro-USD */
    heldMicroUsd: string;
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
    }[];
    nextCursor: string | null;
  };
  /** Providers served now (the config file and live changes), their keys as hints with their state, and their health (last 15 minutes) */
  'GET /admin/v1/providers': {
    data: {
      name: string;
      type: string;
      baseUrl: string | null;
      /** At most this many calls at once, when limited */
      concurrency?: number;
      /** Models routed here; `*` on `local`: every model without configured routes */
      models: string[];
      health: {
        /** `unknown`: no recent calls */
        status: 'healthy' | 'degraded' | 'down' | 'unknown';
        calls: number;
        errors: number;
        errorRate: number;
        lastError: string | null;
        lastErrorAt: string | null;
        lastSuccessAt: string | null;
      };
      enabled?: boolean;
      timeoutMs?: number;
      /** Secret-looking values (keys, secrets, tokens, headers) as hints */
      options?: { [key: string]: unknown };
      /** `live`: stored through the admin API, which wins over the config file */
      source?: 'file' | 'live';
      /** What `expectedVersion` names; null for a provider of the config file not changed live */
      version?: number | null;
      keys?: {
        /** `file` for the config file's key; `upk_…` for a key added live */
        id: string;
        /** The start and the last characters of the secret (`sk-…abcd`); the secret itself is never shown */
        hint: string;
        label: string | null;
        weight: number;
        /** Switched on by the operator */
        enabled: boolean;
        /** `disabled`: switched off, or refused by the upstream (auth, quota) until switched on again */
        state: 'healthy' | 'cooling' | 'disabled';
        disabledReason: string | null;
        coolingUntil: string | null;
        lastError: string | null;
        lastErrorAt: string | null;
        /** Upstream calls with this key in the last hour, counted by the process that answers */
        callsLastHour: number;
      }[];
    }[];
  };
  /** Upstream usage reports corrected before billing, and media callbacks that named another job; newest first (cursor: the last id of the previous page) */
  'GET /admin/v1/upstream-anomalies': {
    data: {
      id: string;
      at: string;
      /** The configured provider that answered */
      provider: string | null;
      /** Our public model id */
      model: string;
      upstreamModel: string | null;
      /** `openai`, `anthropic`, `embeddings` (the request’s protocol) or `media` */
      protocol: string;
      /** The chat or embeddings request (`chat_…`, `emb_…`), or the media attempt */
      reference: string;
      userId: string | null;
      /** The usage count (`inputTokens`, `outputTokens`, `cachedInputTokens`, `cacheCreationTokens`, `cacheCreation1hTokens`, `webSearchRequests`), `cost`, or `upstreamId` for a callback */
      field: string;
      /** `not_a_count`: not a finite number, our estimate was billed; `fractional`: rounded up; `negative`: billed as 0; `above_bound`: above the prompt estimate, max_tokens or the searches the request allowed, billed at the bound; `part_above_whole`: cache reads or writes above the prompt; `cost_above_hold`: the usage at the tier reported cost more than the hold, the hold was charged; `foreign_job`: a media callback named a job whose own request is not ours, not adopted */
      kind: 'not_a_count' | 'fractional' | 'negative' | 'above_bound' | 'part_above_whole' | 'cost_above_hold' | 'foreign_job';
      /** What the upstream sent, as text */
      reported: string;
      /** What was billed instead: tokens, or micro-USD for `cost`; null for a callback */
      billed: number | null;
    }[];
    nextCursor: string | null;
  };
  /** Redeem codes, newest first (cursor: the last id of the previous page) */
  'GET /admin/v1/redeem-codes': {
    data: {
      id: string;
      /** Only in the answer to the create: the code is stored as a hash */
      code?: string;
      /** The last 4 characters */
      codeHint: string;
      amountCents: number;
      maxRedemptions: number;
      redemptions: number;
      expiresAt: string | null;
      disabledAt: string | null;
      note: string | null;
      createdAt: string;
      status: 'active' | 'used_up' | 'expired' | 'disabled';
    }[];
    nextCursor: string | null;
  };
  /** Create a redeem code; the code is shown only in this answer */
  'POST /admin/v1/redeem-codes': {
    id: string;
    /** Only in the answer to the create: the code is stored as a hash */
    code?: string;
    /** The last 4 characters */
    codeHint: string;
    amountCents: number;
    maxRedemptions: number;
    redemptions: number;
    expiresAt: string | null;
    disabledAt: string | null;
    note: string | null;
    createdAt: string;
    status: 'active' | 'used_up' | 'expired' | 'disabled';
  };
  /** Withdraw a redeem code: no further redemptions (credits already made stay) */
  'POST /admin/v1/redeem-codes/{codeId}/disable': {
    id: string;
    /** Only in the answer to the create: the code is stored as a hash */
    code?: string;
    /** The last 4 characters */
    codeHint: string;
    amountCents: number;
    maxRedemptions: number;
    redemptions: number;
    expiresAt: string | null;
    disabledAt: string | null;
    note: string | null;
    createdAt: string;
    status: 'active' | 'used_up' | 'expired' | 'disabled';
  };
  /** Paid top-ups held for review (amount or currency differs from the checkout), oldest first */
  'GET /admin/v1/checkouts/review': {
    data?: {
      id: string;
      userId: string;
      provider: string;
      sessionId: string | null;
      /** What the checkout was opened for, in micro-USD */
      expectedMicroUsd: string;
      /** What the provider says was paid, in the currency's minor unit */
      paidAmountMinor: number | null;
      paidCurrency: string | null;
      createdAt: string;
      heldAt: string | null;
    }[];
  };
}
