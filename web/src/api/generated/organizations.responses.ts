/**
 * Generated from the gateway's OpenAPI document (GET /api/v1/openapi.json) by npm run gen:web-types
 * (scripts/gen-web-api-types.ts). Do not edit: change the route's response schema under src/http/routes
 * and regenerate. test/unit/web/web-api-types.test.ts fails while this file is not current.
 */

/** The body of each of these operations' successful JSON answer, by `METHOD /path`. */
export interface OrganizationsResponses {
  /** The organizations you belong to, with your role in each */
  'GET /api/v1/organizations': {
    code: number;
    data: ({
      id: string;
      name: string;
      /** The caller's role in it */
      role: 'owner' | 'admin' | 'member';
      /** What the organization can spend (its balance less what running requests hold), integer micro-USD */
      balanceMicroUsd: string;
      /** Input plus output tokens per minute over all its keys (429 beyond, in the protocol's shape); null: no limit */
      tokensPerMinute: number | null;
      createdAt: string;
    })[];
  };
  /** Create an organization: an account with its own balance and keys; you are its owner */
  'POST /api/v1/organizations': {
    code: number;
    data: {
      id: string;
      name: string;
      /** The caller's role in it */
      role: 'owner' | 'admin' | 'member';
      /** What the organization can spend (its balance less what running requests hold), integer micro-USD */
      balanceMicroUsd: string;
      /** Input plus output tokens per minute over all its keys (429 beyond, in the protocol's shape); null: no limit */
      tokensPerMinute: number | null;
      createdAt: string;
    };
  };
  /** One of your organizations */
  'GET /api/v1/organizations/{orgId}': {
    code: number;
    data: {
      id: string;
      name: string;
      /** The caller's role in it */
      role: 'owner' | 'admin' | 'member';
      /** What the organization can spend (its balance less what running requests hold), integer micro-USD */
      balanceMicroUsd: string;
      /** Input plus output tokens per minute over all its keys (429 beyond, in the protocol's shape); null: no limit */
      tokensPerMinute: number | null;
      createdAt: string;
    };
  };
  /** Change the organization's limits (an owner or admin): tokens per minute over all its keys, at once in every process */
  'PATCH /api/v1/organizations/{orgId}': {
    code: number;
    data: {
      id: string;
      name: string;
      /** The caller's role in it */
      role: 'owner' | 'admin' | 'member';
      /** What the organization can spend (its balance less what running requests hold), integer micro-USD */
      balanceMicroUsd: string;
      /** Input plus output tokens per minute over all its keys (429 beyond, in the protocol's shape); null: no limit */
      tokensPerMinute: number | null;
      createdAt: string;
    };
  };
  /** The members and their roles */
  'GET /api/v1/organizations/{orgId}/members': {
    code: number;
    data: {
      userId: string;
      email: string | null;
      /** owner: billing, members, everything; admin: keys, limits, settings; member: use, own keys */
      role: 'owner' | 'admin' | 'member';
      joinedAt: string;
      /** What the member may spend of the organization's balance per calendar month (UTC), integer micro-USD; null: no cap */
      monthlyCapMicroUsd: number | null;
      /** What they spent through their keys this calendar month (UTC), integer micro-USD */
      spentThisMonthMicroUsd: number;
    }[];
  };
  /** Change a member's role (an owner; the last owner stays an owner) or monthly spend cap (an owner or admin) */
  'PATCH /api/v1/organizations/{orgId}/members/{userId}': {
    code: number;
    data: {
      userId: string;
      email: string | null;
      /** owner: billing, members, everything; admin: keys, limits, settings; member: use, own keys */
      role: 'owner' | 'admin' | 'member';
      joinedAt: string;
      /** What the member may spend of the organization's balance per calendar month (UTC), integer micro-USD; null: no cap */
      monthlyCapMicroUsd: number | null;
      /** What they spent through their keys this calendar month (UTC), integer micro-USD */
      spentThisMonthMicroUsd: number;
    }[];
  };
  /** Remove a member (an owner), or leave (yourself). The member's keys of the organization stop at once, in every process; the last owner cannot leave */
  'DELETE /api/v1/organizations/{orgId}/members/{userId}': {
    code: number;
    data: {
      removed: string;
    };
  };
  /** Pending invitations (an owner) */
  'GET /api/v1/organizations/{orgId}/invitations': {
    code: number;
    data: {
      id: string;
      email: string;
      /** owner: billing, members, everything; admin: keys, limits, settings; member: use, own keys */
      role: 'owner' | 'admin' | 'member';
      createdAt: string;
      expiresAt: string;
    }[];
  };
  /** Invite someone by email (an owner): a link that works once, for 7 days, for the person signed in with that address */
  'POST /api/v1/organizations/{orgId}/invitations': {
    code: number;
    data: {
      id: string;
      email: string;
      /** owner: billing, members, everything; admin: keys, limits, settings; member: use, own keys */
      role: 'owner' | 'admin' | 'member';
      createdAt: string;
      expiresAt: string;
      url: string;
    };
  };
  /** Withdraw a pending invitation (an owner): its link stops working */
  'DELETE /api/v1/organizations/{orgId}/invitations/{invitationId}': {
    code: number;
    data: {
      revoked: string;
    };
  };
  /** Accept an invitation (signed in with the invited address): you join with the invitation's role */
  'POST /api/v1/organizations/invitations/accept': {
    code: number;
    data: {
      id: string;
      name: string;
      /** The caller's role in it */
      role: 'owner' | 'admin' | 'member';
      /** What the organization can spend (its balance less what running requests hold), integer micro-USD */
      balanceMicroUsd: string;
      /** Input plus output tokens per minute over all its keys (429 beyond, in the protocol's shape); null: no limit */
      tokensPerMinute: number | null;
      createdAt: string;
    };
  };
  /** The organization's keys: everyone's for an owner or admin, your own for a member */
  'GET /api/v1/organizations/{orgId}/keys': {
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
      /** The member the key belongs to: every entry it moves names them */
      memberId: string | null;
    }[];
  };
  /** Make a key of the organization for yourself (any member): it spends the organization’s balance and names you */
  'POST /api/v1/organizations/{orgId}/keys': {
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
      /** The member the key belongs to: every entry it moves names them */
      memberId: string | null;
      key: string;
    };
  };
  /** Revoke a key of the organization (your own; anyone's for an owner or admin): it stops at once, in every process */
  'DELETE /api/v1/organizations/{orgId}/keys/{keyId}': {
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
      /** The member the key belongs to: every entry it moves names them */
      memberId: string | null;
    };
  };
  /** The organization's ledger, newest first; each entry names the member whose key or session moved the money */
  'GET /api/v1/organizations/{orgId}/ledger': {
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
  /** Redeem a code for the organization (an owner): its amount is added to the organization’s balance */
  'POST /api/v1/organizations/{orgId}/redeem': {
    code: number;
    data: {
      amountMicroUsd: string;
      balanceMicroUsd: string;
    };
  };
  /** The organization's usage and spend statistics (an owner or admin), as /api/v1/stats */
  'GET /api/v1/organizations/{orgId}/stats': {
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
