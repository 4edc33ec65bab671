/**
 * Generated from the gateway's OpenAPI document (GET /api/v1/openapi.json) by npm run gen:web-types
 * (scripts/gen-web-api-types.ts). Do not edit: change the route's response schema under src/http/routes
 * and regenerate. test/unit/web/web-api-types.test.ts fails while this file is not current.
 */

/** The shared schemas, as the document's `#/components/schemas`. */
export interface components {
  schemas: {
    CatalogModel: {
      id: string;
      group: string;
      name: string;
      description?: string;
      type: 'TEXT' | 'MUSIC' | 'IMAGE' | 'VIDEO';
      kind: 'media' | 'llm';
      vendor?: string;
      tags: string[];
      capabilities: string[];
      pricing: {
        key: string;
        /** USD for one unit of priceUnit */
        price: string;
        isDefault: boolean;
        dimensions?: { [key: string]: string };
      }[];
      priceFrom?: string;
      priceUnit: 'generation' | 'second' | 'megatoken';
      params: {
        name: string;
        label: string;
        description?: string;
        kind: 'string' | 'number' | 'boolean';
        isArray: boolean;
        required: boolean;
        default?: string | number | boolean | (string | number | boolean)[] | null;
        options?: {
          value: string | number;
          label: string;
        }[];
        minimum?: number;
        maximum?: number;
        maxLength?: number;
        isMedia: boolean;
        isPrompt: boolean;
        multiline: boolean;
        deprecated: boolean;
        minItems?: number;
        maxItems?: number;
        mediaKind?: 'image' | 'video' | 'audio';
        isTaskReference?: boolean;
        fields?: {
          name: string;
          label: string;
          description?: string;
          kind: 'string' | 'number' | 'boolean';
          isArray: boolean;
          required: boolean;
          default?: string | number | boolean | (string | number | boolean)[] | null;
          options?: {
            value: string | number;
            label: string;
          }[];
          minimum?: number;
          maximum?: number;
          maxLength?: number;
          isMedia: boolean;
          isPrompt: boolean;
          multiline: boolean;
          deprecated: boolean;
          minItems?: number;
          maxItems?: number;
          mediaKind?: 'image' | 'video' | 'audio';
          isTaskReference?: boolean;
        }[];
        /** A choice that decides which other fields apply: for each value, the names of the fields it uses (others are refused) */
        fieldsByValue?: { [key: string]: string[] };
        /** When the field is required besides `required`: the values of other fields (defaults count) that make it so, other fields (or sets of fields) that would do instead, and why */
        requiredWhen?: {
          when: { [key: string]: (string | boolean)[] };
          orFields?: string[];
          /** Either/or between sets of fields: met when every field of one set is filled; the set in use is the first with a field filled */
          alternatives?: string[][];
          reason: string;
        }[];
      }[];
      protocols?: ('openai' | 'anthropic')[];
    };
  };
}

/** The body of each operation's successful JSON answer, by `METHOD /path` (path parameters in braces). */
export interface ApiResponses {
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
        /** Generations and text requests running at once, those of agent runs it started included (429) */
        concurrentGenerations: number | null;
      };
      /** A management key may manage the keys of its user through /api/v1/keys, within its own limits */
      manageKeys: boolean;
      /** What the key spent in this calendar month (UTC), in micro-USD (the caller's own keys) */
      spendThisMonthMicroUsd?: number;
    };
  };
  /** Every model with its parameters and prices */
  'GET /api/v1/catalog': components['schemas']['CatalogModel'][];
  /** One model */
  'GET /api/v1/catalog/{id}': components['schemas']['CatalogModel'];
  /** Prices of every model, grouped by model */
  'GET /api/v1/cost': {
    currency?: 'USD';
    models?: {
      model: string;
      name: string;
      type: string;
      kind: 'media' | 'llm';
      priceUnit: 'generation' | 'second' | 'megatoken';
      priceFrom?: string;
      tiers: {
        key: string;
        /** USD per unit */
        price: string;
        /** The same price in integer micro-USD */
        priceMicroUsd: string;
        isDefault: boolean;
        dimensions?: { [key: string]: string };
      }[];
      /** Text models: USD per 1M tokens */
      tokens?: {
        input?: string;
        output?: string;
        cachedInput?: string;
        /** Cache writes with the default (5-minute) lifetime */
        cacheWrite?: string;
        /** Cache writes with a one-hour lifetime */
        cacheWrite1h?: string;
        /** Priority processing, where offered */
        priority?: {
          input?: string;
          output?: string;
          cachedInput?: string;
        };
        /** USD per 1,000 server-side web searches, where offered */
        webSearchPer1k?: string;
        /** Above abovePromptTokens prompt tokens the whole request costs these prices; without prices such prompts are refused */
        longContext?: {
          abovePromptTokens?: number;
          input?: string;
          output?: string;
          cachedInput?: string;
          refused?: boolean;
        };
      };
    }[];
  };
  /** Prices of one model */
  'GET /api/v1/cost/{model}': {
    currency?: 'USD';
    model?: string;
    name?: string;
    type?: string;
    kind?: 'media' | 'llm';
    priceUnit?: 'generation' | 'second' | 'megatoken';
    priceFrom?: string;
    tiers?: {
      key: string;
      /** USD per unit */
      price: string;
      /** The same price in integer micro-USD */
      priceMicroUsd: string;
      isDefault: boolean;
      dimensions?: { [key: string]: string };
    }[];
    /** Text models: USD per 1M tokens */
    tokens?: {
      input?: string;
      output?: string;
      cachedInput?: string;
      /** Cache writes with the default (5-minute) lifetime */
      cacheWrite?: string;
      /** Cache writes with a one-hour lifetime */
      cacheWrite1h?: string;
      /** Priority processing, where offered */
      priority?: {
        input?: string;
        output?: string;
        cachedInput?: string;
      };
      /** USD per 1,000 server-side web searches, where offered */
      webSearchPer1k?: string;
      /** Above abovePromptTokens prompt tokens the whole request costs these prices; without prices such prompts are refused */
      longContext?: {
        abovePromptTokens?: number;
        input?: string;
        output?: string;
        cachedInput?: string;
        refused?: boolean;
      };
    };
  };
  /** Count the input tokens of a message (Anthropic protocol), free */
  'POST /api/v1/messages/count_tokens': {
    input_tokens: number;
    estimated?: boolean;
  };
  /** Exactly what create would debit for this body, in micro-USD */
  'POST /api/v1/generation/estimate': {
    cost: number;
  };
  /** Price, debit and queue a media generation; answers at once with the task id */
  'POST /api/v1/generation/create': {
    code: number;
    data: {
      taskId: string;
      status: 'not_started' | 'processing' | 'finished' | 'failed' | 'expired';
      createdAt: string;
    };
  };
  /** Announce a file for a media field: its upload URL */
  'POST /api/v1/playground/uploads': {
    code: number;
    data: {
      attachmentId: string;
      /** PUT the raw bytes here, without API credentials, with uploadHeaders and the announced Content-Length */
      uploadUrl: string;
      uploadMethod?: 'PUT';
      uploadHeaders?: { [key: string]: string };
      /** The upload must be completed before this (24 hours) */
      expiresAt: string;
      maxBytes?: number;
    };
  };
  /** Finish a playground upload: the bytes are checked, the answer carries its gateway file URL */
  'POST /api/v1/playground/uploads/{uploadId}/complete': {
    code: number;
    data: {
      attachmentId: string;
      conversationId?: string;
      name?: string;
      mime?: string;
      sizeBytes?: number;
      status: 'pending' | 'completed' | 'expired';
      /** What the check measured: kind (image, video, audio, pdf, text), format, width, height, durationS, pages, chars */
      facts?: { [key: string]: unknown } | null;
      sha256?: string | null;
      createdAt?: string;
      uploadExpiresAt?: string;
      completedAt?: string | null;
      /** 3 days after completion; reading or using it does not extend this */
      expiresAt?: string | null;
      /** The gateway file URL of the original: put it in a media field of a generation. */
      url: string;
    };
  };
  /** The status of a task, with its files when finished */
  'GET /api/v1/task/status/{taskId}': {
    code: number;
    data: {
      taskId: string;
      status: 'not_started' | 'processing' | 'finished' | 'failed' | 'expired';
      files: {
        /** Direct URL, kept 3 days */
        fileUrl: string;
        fileType: 'image' | 'video' | 'music';
      }[];
      /** Structured result: music `tracks`, or the result of a data action */
      output: { [key: string]: unknown } | null;
      createdTime: string;
      errorMessage: string | null;
    };
  };
  /** A generation with its request, price, provider attempts and webhook deliveries */
  'GET /api/v1/generation/{generationId}': {
    code: number;
    data: {
      generationId: string;
      /** The same id, as create and the status endpoint name it */
      taskId: string;
      model: string;
      type: 'IMAGE' | 'VIDEO' | 'MUSIC';
      family: string;
      status: 'not_started' | 'processing' | 'finished' | 'failed' | 'expired';
      prompt: string | null;
      resolution: string | null;
      /** The validated input, defaults applied */
      input: { [key: string]: unknown };
      /** The input media measured for the price */
      measuredMedia: {
        url: string;
        durationS?: number;
        format?: string;
        bytes: number;
      }[];
      cost: {
        /** What the create debited, integer micro-USD */
        microUsd: string;
        /** The same in USD cents (exact) */
        cents: number;
        /** The price tier that applied */
        tier: string;
        unit: string;
        units: number;
        /** Refunded on failure, integer micro-USD */
        refundedMicroUsd: string;
      };
      files: {
        /** Direct URL, kept 3 days */
        fileUrl: string;
        fileType: 'image' | 'video' | 'music';
      }[];
      /** Structured result: music `tracks`, or the result of a data action */
      output: { [key: string]: unknown } | null;
      errorMessage: string | null;
      createdAt: string;
      startedAt: string | null;
      finishedAt: string | null;
      expiresAt: string | null;
      /** The completion webhook, when the create gave one */
      webhook: {
        url: string;
        deliveries: {
          /** Also the webhook-id header of every attempt */
          id: string;
          taskId: string | null;
          eventType: string;
          url: string;
          status: 'pending' | 'delivered' | 'failed';
          attemptCount: number;
          nextAttemptAt: string | null;
          lastStatusCode: number | null;
          lastError: string | null;
          createdAt: string;
          deliveredAt: string | null;
          attempts: {
            attemptNo: number;
            startedAt: string;
            durationMs: number;
            /** The receiver’s status; null when no response came */
            statusCode: number | null;
            error: string | null;
          }[];
        }[];
      } | null;
      attempts: {
        /** From 1, in the order tried */
        attempt: number;
        provider: string;
        upstreamModel: string;
        /** The provider's id of the job, once it accepted it */
        upstreamId: string | null;
        state: string;
        error: string | null;
        /** Whether the error let the next provider be tried */
        retryable: boolean | null;
        polls: number;
        startedAt: string | null;
        acceptedAt: string | null;
        endedAt: string | null;
        /** What the provider reported after we had left the attempt */
        lateOutcome: string | null;
        lateAt: string | null;
      }[];
    };
  };
  /** Your webhook signing secret */
  'GET /api/v1/webhooks/secret': {
    code: number;
    data: {
      /** whsec_ + base64 key: verify the webhook-signature header with it (Standard Webhooks) */
      secret: string;
      /** After a rotation: until then deliveries also carry a signature by the replaced secret */
      previousSecretValidUntil?: string;
    };
  };
  /** Rotate your webhook signing secret */
  'POST /api/v1/webhooks/secret/rotate': {
    code: number;
    data: {
      /** whsec_ + base64 key: verify the webhook-signature header with it (Standard Webhooks) */
      secret: string;
      /** After a rotation: until then deliveries also carry a signature by the replaced secret */
      previousSecretValidUntil?: string;
    };
  };
  /** Your webhook deliveries with every attempt */
  'GET /api/v1/webhooks/deliveries': {
    code: number;
    data: {
      /** Also the webhook-id header of every attempt */
      id: string;
      taskId: string | null;
      eventType: string;
      url: string;
      status: 'pending' | 'delivered' | 'failed';
      attemptCount: number;
      nextAttemptAt: string | null;
      lastStatusCode: number | null;
      lastError: string | null;
      createdAt: string;
      deliveredAt: string | null;
      attempts: {
        attemptNo: number;
        startedAt: string;
        durationMs: number;
        /** The receiver’s status; null when no response came */
        statusCode: number | null;
        error: string | null;
      }[];
    }[];
  };
  /** Create an account with email and password and sign in (sets the session cookie) */
  'POST /api/v1/auth/signup': {
    code: number;
    data: {
      user: {
        id: string;
        email: string | null;
        /** USD cents, rounded down */
        balance: number;
        createdAt: string;
        /** Administers the gateway (may use the admin API) */
        isAdmin: boolean;
        /** False for an account that has only signed in by link: it sets a first password without a current one */
        hasPassword: boolean;
      };
      /** Send it as x-csrf-token on POST, PUT, PATCH and DELETE requests made with the session cookie */
      csrfToken: string;
      /** When the session ends if unused (it slides with use) */
      expiresAt: string;
    };
  };
  /** Sign in with email and password (sets the session cookie) */
  'POST /api/v1/auth/login': {
    code: number;
    data: {
      user: {
        id: string;
        email: string | null;
        /** USD cents, rounded down */
        balance: number;
        createdAt: string;
        /** Administers the gateway (may use the admin API) */
        isAdmin: boolean;
        /** False for an account that has only signed in by link: it sets a first password without a current one */
        hasPassword: boolean;
      };
      /** Send it as x-csrf-token on POST, PUT, PATCH and DELETE requests made with the session cookie */
      csrfToken: string;
      /** When the session ends if unused (it slides with use) */
      expiresAt: string;
    };
  };
  /** The signed-in user and the CSRF token of the session */
  'GET /api/v1/auth/session': {
    code: number;
    data: {
      user: {
        id: string;
        email: string | null;
        /** USD cents, rounded down */
        balance: number;
        createdAt: string;
        /** Administers the gateway (may use the admin API) */
        isAdmin: boolean;
        /** False for an account that has only signed in by link: it sets a first password without a current one */
        hasPassword: boolean;
      };
      /** Send it as x-csrf-token on POST, PUT, PATCH and DELETE requests made with the session cookie */
      csrfToken: string;
      /** When the session ends if unused (it slides with use) */
      expiresAt: string;
    };
  };
  /** Change the password (requires the current one), or set a first one on an account that has none; signs out every other session */
  'POST /api/v1/auth/password': {
    code: number;
    data: {
      /** Other sessions of this user signed out */
      otherSessionsEnded: number;
    };
  };
  /** Sign in with a one-time sign-in link (sets the session cookie); the dashboard sends it when you confirm */
  'POST /api/v1/auth/link': {
    code: number;
    data: {
      user: {
        id: string;
        email: string | null;
        /** USD cents, rounded down */
        balance: number;
        createdAt: string;
        /** Administers the gateway (may use the admin API) */
        isAdmin: boolean;
        /** False for an account that has only signed in by link: it sets a first password without a current one */
        hasPassword: boolean;
      };
      /** Send it as x-csrf-token on POST, PUT, PATCH and DELETE requests made with the session cookie */
      csrfToken: string;
      /** When the session ends if unused (it slides with use) */
      expiresAt: string;
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
  /** Your generations, newest first, filtered and paginated */
  'GET /api/v1/generations': {
    code: number;
    data: {
      items: ({
        taskId: string;
        model: string;
        type: 'IMAGE' | 'VIDEO' | 'MUSIC';
        status: 'not_started' | 'processing' | 'finished' | 'failed' | 'expired';
        /** What the create debited, USD cents (exact) */
        costCents: number;
        /** The same in micro-USD, a decimal integer string */
        costMicroUsd: string;
        /** A failed generation was refunded in full */
        refunded: boolean;
        /** At most 300 characters */
        prompt: string | null;
        /** A music generation's song titles (its tracks', distinct, joined by ' / '); null for images and videos */
        title: string | null;
        files: {
          fileUrl: string;
          fileType: 'image' | 'video' | 'music';
        }[];
        errorMessage: string | null;
        createdTime: string;
        finishedTime: string | null;
      })[];
      nextCursor: string | null;
    };
  };
  /** Your agent defaults on this storefront, and their version */
  'GET /api/v1/agent/settings': {
    code: number;
    data: {
      version: number;
      settings: {
        /** The text model that plans and calls tools */
        orchestratorModelId?: string;
        /** Tried in order after a confirmed failure of the orchestrator */
        fallbackModelIds?: string[];
        /** Soft default for images */
        imageModelId?: string;
        /** Soft default for videos */
        videoModelId?: string;
        /** Soft default for music */
        musicModelId?: string;
        /** defaults: the defaults unless the inputs do not fit; cheapest: the cheapest fitting model; pinned: only the defaults unless a change is approved */
        routingPolicy?: 'defaults' | 'cheapest' | 'pinned';
        /** The run limit when a message gives none (decimal integer string of micro-USD; 1000000 = USD 1) */
        defaultMaxCostMicroUsd?: string;
      };
      updatedAt?: string | null;
    };
  };
  /** Save your agent defaults (optimistic versioning) */
  'PUT /api/v1/agent/settings': {
    code: number;
    data: {
      version: number;
      settings: {
        /** The text model that plans and calls tools */
        orchestratorModelId?: string;
        /** Tried in order after a confirmed failure of the orchestrator */
        fallbackModelIds?: string[];
        /** Soft default for images */
        imageModelId?: string;
        /** Soft default for videos */
        videoModelId?: string;
        /** Soft default for music */
        musicModelId?: string;
        /** defaults: the defaults unless the inputs do not fit; cheapest: the cheapest fitting model; pinned: only the defaults unless a change is approved */
        routingPolicy?: 'defaults' | 'cheapest' | 'pinned';
        /** The run limit when a message gives none (decimal integer string of micro-USD; 1000000 = USD 1) */
        defaultMaxCostMicroUsd?: string;
      };
      updatedAt?: string | null;
    };
  };
  /** Assistant profiles a conversation can start with */
  'GET /api/v1/agent/profiles': {
    code: number;
    data: {
      /** The value of a conversation's profileId */
      profileId: string;
      name: string;
      description: string;
    }[];
  };
  /** The models an agent run can use, with prices and verified route capabilities */
  'GET /api/v1/agent/models': {
    code: number;
    data: {
      /** The value of selectedModelId and of the settings' model fields */
      id: string;
      name: string;
      type: 'TEXT' | 'IMAGE' | 'VIDEO' | 'MUSIC';
      /** llm: a text model (drives a run in manual mode); media: makes images, videos or music */
      kind: 'llm' | 'media';
      vendor: string | null;
      priceUnit: string;
      /** The lowest price in USD per priceUnit (decimal string) */
      priceFrom: string | null;
      /** The price table (text models: USD per million tokens) */
      pricing?: unknown;
      /** A route exists whose provider is configured */
      executable: boolean;
      /** Text models: tools, imageInput and structuredOutput as verified, failed or unverified, contextWindow, maxOutputTokens; media models: referenceImages, acceptsReferenceImages */
      capabilities: { [key: string]: unknown };
      /** Text models: each route's provider, upstream model and verified capabilities */
      routes?: { [key: string]: unknown }[];
    }[];
  };
  /** Your conversations, latest activity first */
  'GET /api/v1/agent/conversations': {
    code: number;
    data: {
      items?: {
        conversationId?: string;
        title?: string | null;
        titleSource?: 'user' | 'generated' | null;
        mode?: 'auto' | 'manual';
        selectedModelId?: string | null;
        projectId?: string | null;
        profileId?: string | null;
        defaultWorkflowId?: string | null;
        settings?: {
          /** The text model that plans and calls tools */
          orchestratorModelId?: string;
          /** Tried in order after a confirmed failure of the orchestrator */
          fallbackModelIds?: string[];
          /** Soft default for images */
          imageModelId?: string;
          /** Soft default for videos */
          videoModelId?: string;
          /** Soft default for music */
          musicModelId?: string;
          /** defaults: the defaults unless the inputs do not fit; cheapest: the cheapest fitting model; pinned: only the defaults unless a change is approved */
          routingPolicy?: 'defaults' | 'cheapest' | 'pinned';
          /** The run limit when a message gives none (decimal integer string of micro-USD; 1000000 = USD 1) */
          defaultMaxCostMicroUsd?: string;
        };
        version?: number;
        activeRunId?: string | null;
        lastEventSequence?: number;
        lastActivityAt?: string;
        createdAt?: string;
      }[];
      nextCursor?: string | null;
    };
  };
  /** Create a conversation */
  'POST /api/v1/agent/conversations': {
    code: number;
    data: {
      conversationId?: string;
      title?: string | null;
      titleSource?: 'user' | 'generated' | null;
      mode?: 'auto' | 'manual';
      selectedModelId?: string | null;
      projectId?: string | null;
      profileId?: string | null;
      defaultWorkflowId?: string | null;
      settings?: {
        /** The text model that plans and calls tools */
        orchestratorModelId?: string;
        /** Tried in order after a confirmed failure of the orchestrator */
        fallbackModelIds?: string[];
        /** Soft default for images */
        imageModelId?: string;
        /** Soft default for videos */
        videoModelId?: string;
        /** Soft default for music */
        musicModelId?: string;
        /** defaults: the defaults unless the inputs do not fit; cheapest: the cheapest fitting model; pinned: only the defaults unless a change is approved */
        routingPolicy?: 'defaults' | 'cheapest' | 'pinned';
        /** The run limit when a message gives none (decimal integer string of micro-USD; 1000000 = USD 1) */
        defaultMaxCostMicroUsd?: string;
      };
      version?: number;
      activeRunId?: string | null;
      lastEventSequence?: number;
      lastActivityAt?: string;
      createdAt?: string;
    };
  };
  /** One conversation */
  'GET /api/v1/agent/conversations/{conversationId}': {
    code: number;
    data: {
      conversationId?: string;
      title?: string | null;
      titleSource?: 'user' | 'generated' | null;
      mode?: 'auto' | 'manual';
      selectedModelId?: string | null;
      projectId?: string | null;
      profileId?: string | null;
      defaultWorkflowId?: string | null;
      settings?: {
        /** The text model that plans and calls tools */
        orchestratorModelId?: string;
        /** Tried in order after a confirmed failure of the orchestrator */
        fallbackModelIds?: string[];
        /** Soft default for images */
        imageModelId?: string;
        /** Soft default for videos */
        videoModelId?: string;
        /** Soft default for music */
        musicModelId?: string;
        /** defaults: the defaults unless the inputs do not fit; cheapest: the cheapest fitting model; pinned: only the defaults unless a change is approved */
        routingPolicy?: 'defaults' | 'cheapest' | 'pinned';
        /** The run limit when a message gives none (decimal integer string of micro-USD; 1000000 = USD 1) */
        defaultMaxCostMicroUsd?: string;
      };
      version?: number;
      activeRunId?: string | null;
      lastEventSequence?: number;
      lastActivityAt?: string;
      createdAt?: string;
    };
  };
  /** Rename a conversation (optimistic versioning) */
  'PATCH /api/v1/agent/conversations/{conversationId}': {
    code: number;
    data: {
      conversationId?: string;
      title?: string | null;
      titleSource?: 'user' | 'generated' | null;
      mode?: 'auto' | 'manual';
      selectedModelId?: string | null;
      projectId?: string | null;
      profileId?: string | null;
      defaultWorkflowId?: string | null;
      settings?: {
        /** The text model that plans and calls tools */
        orchestratorModelId?: string;
        /** Tried in order after a confirmed failure of the orchestrator */
        fallbackModelIds?: string[];
        /** Soft default for images */
        imageModelId?: string;
        /** Soft default for videos */
        videoModelId?: string;
        /** Soft default for music */
        musicModelId?: string;
        /** defaults: the defaults unless the inputs do not fit; cheapest: the cheapest fitting model; pinned: only the defaults unless a change is approved */
        routingPolicy?: 'defaults' | 'cheapest' | 'pinned';
        /** The run limit when a message gives none (decimal integer string of micro-USD; 1000000 = USD 1) */
        defaultMaxCostMicroUsd?: string;
      };
      version?: number;
      activeRunId?: string | null;
      lastEventSequence?: number;
      lastActivityAt?: string;
      createdAt?: string;
    };
  };
  /** Send a task, a follow-up, steering, or a clarification reply */
  'POST /api/v1/agent/conversations/{conversationId}/messages': {
    code: number;
    data: {
      conversationId: string;
      messageId: string;
      runId: string;
      status: 'queued' | 'running' | 'waiting_for_clarification' | 'waiting_for_model_approval' | 'waiting_for_budget' | 'waiting_for_media' | 'stopping' | 'completed' | 'failed' | 'cancelled';
      /** A queued follow-up: 1 starts next */
      queuePosition?: number;
    };
  };
  /** JSON replay of a conversation's events */
  'GET /api/v1/agent/conversations/{conversationId}/event-history': {
    code: number;
    data: {
      events?: {
        /** evt_…: also the webhook-id of its webhook deliveries */
        id: string;
        /** Gap-free within the conversation; the SSE id */
        sequence: number;
        type: 'run.created' | 'run.status_changed' | 'run.step.started' | 'run.step.completed' | 'message.created' | 'message.delta' | 'message.completed' | 'artifact.created' | 'decision.required' | 'question.asked' | 'budget.updated' | 'conversation.updated' | 'run.completed' | 'run.failed' | 'run.cancelled';
        conversationId: string;
        runId?: string | null;
        createdAt: string;
        data: { [key: string]: unknown };
      }[];
      lastSequence?: number;
      hasMore?: boolean;
      resync?: boolean;
    };
  };
  /** A run: status, steps, costs, budget, pending actions and canSteer */
  'GET /api/v1/agent/runs/{runId}': {
    code: number;
    /** A run: status, budget, steps with their costs, pending actions and canSteer */
    data: {
      runId?: string;
      conversationId?: string;
      status?: 'queued' | 'running' | 'waiting_for_clarification' | 'waiting_for_model_approval' | 'waiting_for_budget' | 'waiting_for_media' | 'stopping' | 'completed' | 'failed' | 'cancelled';
      waitReason?: string | null;
      canSteer?: boolean;
      queuePosition?: number | null;
      budget?: {
        limitMicroUsd?: string;
        settledMicroUsd?: string;
        committedMicroUsd?: string;
        remainingMicroUsd?: string;
        version?: number;
      };
      costs?: { [key: string]: unknown };
      steps?: { [key: string]: unknown }[];
      pendingActions?: { [key: string]: unknown }[];
      error?: { [key: string]: unknown } | null;
    };
  };
  /** A run's result: main outcome, revision and artifacts (no model call) */
  'GET /api/v1/agent/runs/{runId}/result': {
    code: number;
    data: {
      runId?: string;
      status?: string;
      mainOutcome?: {
        text?: string;
        artifactIds?: string[];
      } | null;
      revision?: number;
      artifacts?: {
        artifactId: string;
        conversationId?: string;
        runId?: string;
        /** The source generation (task id); null without one */
        generationId: string | null;
        outputIndex: number | null;
        type?: string;
        contentType?: string;
        url?: string;
        createdAt?: string;
        expiresAt?: string | null;
      }[];
      /** The value fitting the run's outputSchema; null without a schema, while it is made, or when extraction failed */
      structuredResult?: unknown;
      /** SHA-256 of the outputSchema's RFC 8785 canonical JSON */
      schemaHash?: string | null;
      /** The steps the structured result was made from */
      sourceSteps?: string[];
      extraction?: {
        status?: 'pending' | 'succeeded' | 'failed';
        method?: 'deterministic' | 'model' | null;
        /** Extraction calls: the first and at most one repair */
        attempts?: number;
        costMicroUsd?: string;
        error?: string | null;
      } | null;
    };
  };
  /** Change a run's limit (optimistic versioning on the budget) */
  'PATCH /api/v1/agent/runs/{runId}/budget': {
    code: number;
    data: {
      limitMicroUsd?: string;
      settledMicroUsd?: string;
      committedMicroUsd?: string;
      remainingMicroUsd?: string;
      version?: number;
    };
  };
  /** Your newest artifacts that have not expired, newest first */
  'GET /api/v1/agent/artifacts': {
    code: number;
    data: {
      artifactId: string;
      conversationId?: string;
      runId?: string;
      /** The source generation (task id); null without one */
      generationId: string | null;
      outputIndex: number | null;
      type?: string;
      contentType?: string;
      url?: string;
      createdAt?: string;
      expiresAt?: string | null;
    }[];
  };
  /** An artifact with its source generation and output index */
  'GET /api/v1/agent/artifacts/{artifactId}': {
    code: number;
    data: {
      artifactId: string;
      conversationId?: string;
      runId?: string;
      /** The source generation (task id); null without one */
      generationId: string | null;
      outputIndex: number | null;
      type?: string;
      contentType?: string;
      url?: string;
      createdAt?: string;
      expiresAt?: string | null;
    };
  };
  /** Your lifecycle webhook destinations (without secrets) */
  'GET /api/v1/agent/webhooks': {
    code: number;
    data: {
      webhookId?: string;
      url?: string;
      eventTypes?: string[];
      scope?: string;
      scopeId?: string | null;
      status?: 'active' | 'disabled';
      disabledReason?: string | null;
      createdAt?: string;
    }[];
  };
  /** Add a lifecycle webhook destination (the signing secret is shown once) */
  'POST /api/v1/agent/webhooks': {
    code: number;
    data: {
      webhookId?: string;
      url?: string;
      eventTypes?: string[];
      scope?: string;
      scopeId?: string | null;
      status?: 'active' | 'disabled';
      disabledReason?: string | null;
      createdAt?: string;
      secret?: string;
    };
  };
  /** Send a signed webhook.test event to a destination */
  'POST /api/v1/agent/webhooks/{webhookId}/test': {
    code: number;
    data: {
      /** The delivery that will carry the event (whd_…) */
      deliveryId: string;
      /** The event id, sent as webhook-id; a redelivery keeps it */
      eventId: string;
      /** False: the event was already pending for this destination, nothing was added */
      queued: boolean;
    };
  };
  /** A destination's recent deliveries, newest first */
  'GET /api/v1/agent/webhooks/{webhookId}/deliveries': {
    code: number;
    data: {
      items?: {
        deliveryId: string;
        /** Sent as webhook-id; the same on every attempt and redelivery */
        eventId: string;
        /** An event type, or webhook.test */
        eventType: string;
        status: 'pending' | 'delivered' | 'failed';
        attempts: number;
        /** The receiver's HTTP status at the last attempt; null when none answered */
        lastStatusCode: number | null;
        /** Why the last attempt failed, in words (network addresses are not shown) */
        lastError: string | null;
        createdAt: string;
        lastAttemptAt: string | null;
        /** While pending: when the next attempt is due */
        nextAttemptAt: string | null;
        deliveredAt: string | null;
      }[];
      nextCursor?: string | null;
    };
  };
  /** Send a delivery's event again, under the same event id */
  'POST /api/v1/agent/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver': {
    code: number;
    data: {
      /** The delivery that will carry the event (whd_…) */
      deliveryId: string;
      /** The event id, sent as webhook-id; a redelivery keeps it */
      eventId: string;
      /** False: the event was already pending for this destination, nothing was added */
      queued: boolean;
    };
  };
  /** Announce an attachment: its upload URL */
  'POST /api/v1/agent/conversations/{conversationId}/attachments': {
    code: number;
    data: {
      attachmentId: string;
      /** PUT the raw bytes here, without API credentials, with uploadHeaders and the announced Content-Length */
      uploadUrl: string;
      uploadMethod?: 'PUT';
      uploadHeaders?: { [key: string]: string };
      /** The upload must be completed before this (24 hours) */
      expiresAt: string;
      maxBytes?: number;
    };
  };
  /** Finish an upload: the bytes are checked and the original becomes immutable */
  'POST /api/v1/agent/attachments/{attachmentId}/complete': {
    code: number;
    data: {
      attachmentId: string;
      conversationId?: string;
      name?: string;
      mime?: string;
      sizeBytes?: number;
      status: 'pending' | 'completed' | 'expired';
      /** What the check measured: kind (image, video, audio, pdf, text), format, width, height, durationS, pages, chars */
      facts?: { [key: string]: unknown } | null;
      sha256?: string | null;
      createdAt?: string;
      uploadExpiresAt?: string;
      completedAt?: string | null;
      /** 3 days after completion; reading or using it does not extend this */
      expiresAt?: string | null;
    };
  };
  /** An attachment: status, measured facts, expiry */
  'GET /api/v1/agent/attachments/{attachmentId}': {
    code: number;
    data: {
      attachmentId: string;
      conversationId?: string;
      name?: string;
      mime?: string;
      sizeBytes?: number;
      status: 'pending' | 'completed' | 'expired';
      /** What the check measured: kind (image, video, audio, pdf, text), format, width, height, durationS, pages, chars */
      facts?: { [key: string]: unknown } | null;
      sha256?: string | null;
      createdAt?: string;
      uploadExpiresAt?: string;
      completedAt?: string | null;
      /** 3 days after completion; reading or using it does not extend this */
      expiresAt?: string | null;
    };
  };
  /** The conversations this one's runs may search, with their version */
  'GET /api/v1/agent/conversations/{conversationId}/context-references': {
    code: number;
    data: {
      version: number;
      references: {
        targetType: 'conversation';
        /** A conversation id (conv_…) or its URL on this storefront */
        targetId: string;
        title?: string | null;
      }[];
    };
  };
  /** Replace the context references (optimistic versioning; an empty list clears access) */
  'PUT /api/v1/agent/conversations/{conversationId}/context-references': {
    code: number;
    data: {
      version: number;
      references: {
        targetType: 'conversation';
        /** A conversation id (conv_…) or its URL on this storefront */
        targetId: string;
        title?: string | null;
      }[];
    };
  };
  /** The built-in workflows (latest version of each) */
  'GET /api/v1/agent/workflows': {
    code: number;
    data: {
      workflowId: string;
      version: number;
      versions: number[];
      name: string;
      description: string;
      /** JSON Schema of workflowInput; a missing required field is asked for by the run */
      inputSchema: {
        type: 'object';
        additionalProperties: false;
        required: string[];
        properties: { [key: string]: {
            type: 'string' | 'integer';
            description: string;
            enum?: string[];
            minimum?: number;
            maximum?: number;
            maxLength?: number;
          } };
      };
      /** One workflow only (not in the list) */
      graph?: {
        nodes: {
          id: string;
          tool: string;
          label: string;
          dependsOn: string[];
        }[];
      };
    }[];
  };
  /** One workflow: input schema and graph (the latest version, or ?version=) */
  'GET /api/v1/agent/workflows/{workflowId}': {
    code: number;
    data: {
      workflowId: string;
      version: number;
      versions: number[];
      name: string;
      description: string;
      /** JSON Schema of workflowInput; a missing required field is asked for by the run */
      inputSchema: {
        type: 'object';
        additionalProperties: false;
        required: string[];
        properties: { [key: string]: {
            type: 'string' | 'integer';
            description: string;
            enum?: string[];
            minimum?: number;
            maximum?: number;
            maxLength?: number;
          } };
      };
      /** One workflow only (not in the list) */
      graph?: {
        nodes: {
          id: string;
          tool: string;
          label: string;
          dependsOn: string[];
        }[];
      };
    };
  };
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
  /** Copy an artifact, a generation's file or an upload into the project's assets (202: accepted, not yet copied) */
  'POST /api/v1/agent/projects/{projectId}/assets/import': {
    code: number;
    data: {
      operationId: string;
      status: 'pending' | 'completed' | 'failed';
      type: 'retain' | 'import';
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
  /** Your projects on this storefront, most recently updated first */
  'GET /api/v1/agent/projects': {
    code: number;
    data: {
      items: {
        projectId: string;
        version: number;
        name: string;
        instructions: string;
        brand: {
          name: string | null;
          /** How the brand speaks (tone, words to use and avoid) */
          voice: string | null;
          /** Brand colours as "#RRGGBB" (upper case), in the order given */
          colors: string[];
          /** An asset of this project (GET /agent/projects/{projectId}/assets) */
          logoAssetId: string | null;
        };
        modelDefaults: {
          /** The text model that plans and calls tools; null: your setting applies */
          orchestratorModelId: string | null;
          /** Soft default for images; null: your setting applies */
          imageModelId: string | null;
          /** Soft default for videos; null: your setting applies */
          videoModelId: string | null;
          /** Soft default for music; null: your setting applies */
          musicModelId: string | null;
        };
        createdAt: string;
        updatedAt: string;
      }[];
      nextCursor: string | null;
    };
  };
  /** Create a brand project */
  'POST /api/v1/agent/projects': {
    code: number;
    data: {
      projectId: string;
      version: number;
      name: string;
      instructions: string;
      brand: {
        name: string | null;
        /** How the brand speaks (tone, words to use and avoid) */
        voice: string | null;
        /** Brand colours as "#RRGGBB" (upper case), in the order given */
        colors: string[];
        /** An asset of this project (GET /agent/projects/{projectId}/assets) */
        logoAssetId: string | null;
      };
      modelDefaults: {
        /** The text model that plans and calls tools; null: your setting applies */
        orchestratorModelId: string | null;
        /** Soft default for images; null: your setting applies */
        imageModelId: string | null;
        /** Soft default for videos; null: your setting applies */
        videoModelId: string | null;
        /** Soft default for music; null: your setting applies */
        musicModelId: string | null;
      };
      createdAt: string;
      updatedAt: string;
    };
  };
  /** One project at its current version */
  'GET /api/v1/agent/projects/{projectId}': {
    code: number;
    data: {
      projectId: string;
      version: number;
      name: string;
      instructions: string;
      brand: {
        name: string | null;
        /** How the brand speaks (tone, words to use and avoid) */
        voice: string | null;
        /** Brand colours as "#RRGGBB" (upper case), in the order given */
        colors: string[];
        /** An asset of this project (GET /agent/projects/{projectId}/assets) */
        logoAssetId: string | null;
      };
      modelDefaults: {
        /** The text model that plans and calls tools; null: your setting applies */
        orchestratorModelId: string | null;
        /** Soft default for images; null: your setting applies */
        imageModelId: string | null;
        /** Soft default for videos; null: your setting applies */
        videoModelId: string | null;
        /** Soft default for music; null: your setting applies */
        musicModelId: string | null;
      };
      createdAt: string;
      updatedAt: string;
    };
  };
  /** Update a project (optimistic versioning; a new immutable version) */
  'PATCH /api/v1/agent/projects/{projectId}': {
    code: number;
    data: {
      projectId: string;
      version: number;
      name: string;
      instructions: string;
      brand: {
        name: string | null;
        /** How the brand speaks (tone, words to use and avoid) */
        voice: string | null;
        /** Brand colours as "#RRGGBB" (upper case), in the order given */
        colors: string[];
        /** An asset of this project (GET /agent/projects/{projectId}/assets) */
        logoAssetId: string | null;
      };
      modelDefaults: {
        /** The text model that plans and calls tools; null: your setting applies */
        orchestratorModelId: string | null;
        /** Soft default for images; null: your setting applies */
        imageModelId: string | null;
        /** Soft default for videos; null: your setting applies */
        videoModelId: string | null;
        /** Soft default for music; null: your setting applies */
        musicModelId: string | null;
      };
      createdAt: string;
      updatedAt: string;
    };
  };
  /** The versions of a project, newest first (immutable) */
  'GET /api/v1/agent/projects/{projectId}/versions': {
    code: number;
    data: {
      items: {
        projectId: string;
        version: number;
        name: string;
        instructions: string;
        brand: {
          name: string | null;
          /** How the brand speaks (tone, words to use and avoid) */
          voice: string | null;
          /** Brand colours as "#RRGGBB" (upper case), in the order given */
          colors: string[];
          /** An asset of this project (GET /agent/projects/{projectId}/assets) */
          logoAssetId: string | null;
        };
        modelDefaults: {
          /** The text model that plans and calls tools; null: your setting applies */
          orchestratorModelId: string | null;
          /** Soft default for images; null: your setting applies */
          imageModelId: string | null;
          /** Soft default for videos; null: your setting applies */
          videoModelId: string | null;
          /** Soft default for music; null: your setting applies */
          musicModelId: string | null;
        };
        createdAt: string;
      }[];
      nextCursor: string | null;
    };
  };
  /** One version of a project */
  'GET /api/v1/agent/projects/{projectId}/versions/{version}': {
    code: number;
    data: {
      projectId: string;
      version: number;
      name: string;
      instructions: string;
      brand: {
        name: string | null;
        /** How the brand speaks (tone, words to use and avoid) */
        voice: string | null;
        /** Brand colours as "#RRGGBB" (upper case), in the order given */
        colors: string[];
        /** An asset of this project (GET /agent/projects/{projectId}/assets) */
        logoAssetId: string | null;
      };
      modelDefaults: {
        /** The text model that plans and calls tools; null: your setting applies */
        orchestratorModelId: string | null;
        /** Soft default for images; null: your setting applies */
        imageModelId: string | null;
        /** Soft default for videos; null: your setting applies */
        videoModelId: string | null;
        /** Soft default for music; null: your setting applies */
        musicModelId: string | null;
      };
      createdAt: string;
    };
  };
  /** The files of a project, newest first */
  'GET /api/v1/agent/projects/{projectId}/assets': {
    code: number;
    data: {
      items: {
        assetId: string;
        projectId: string;
        role: string;
        name: string;
        mime: string;
        sizeBytes: number;
        sourceArtifactId: string | null;
        createdAt: string;
      }[];
      nextCursor: string | null;
    };
  };
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
      /** Generations and text requests running at once, those of agent runs it started included (429) */
      concurrentGenerations: number | null;
    };
    /** A management key may manage the keys of its user through /api/v1/keys, within its own limits */
    manageKeys: boolean;
    /** What the key spent in this calendar month (UTC), in micro-USD (the caller's own keys) */
    spendThisMonthMicroUsd?: number;
  };
  /** Become an administrator with the operator's ADMIN_TOKEN (signed in to the dashboard; needs the CSRF header) */
  'POST /api/v1/auth/claim-admin': {
    code: number;
    data: {
      id: string;
      email: string | null;
      /** USD cents, rounded down */
      balance: number;
      createdAt: string;
      /** Administers the gateway (may use the admin API) */
      isAdmin: boolean;
    };
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
  /** Configured providers with their health and recent error rate (last 15 minutes) */
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
