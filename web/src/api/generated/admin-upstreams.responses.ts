/**
 * Generated from the gateway's OpenAPI document (GET /api/v1/openapi.json) by npm run gen:web-types
 * (scripts/gen-web-api-types.ts). Do not edit: change the route's response schema under src/http/routes
 * and regenerate. test/unit/web/web-api-types.test.ts fails while this file is not current.
 */

/** The body of each of these operations' successful JSON answer, by `METHOD /path`. */
export interface AdminUpstreamsResponses {
  /** One provider as served now, its keys as hints with their live state */
  'GET /admin/v1/providers/{name}': {
    name: string;
    type: string;
    baseUrl: string | null;
    concurrency?: number;
    enabled?: boolean;
    timeoutMs?: number;
    /** Secret-looking values (keys, secrets, tokens, headers) as hints */
    options?: { [key: string]: unknown };
    /** `live`: stored through the admin API, which wins over the config file */
    source: 'file' | 'live';
    /** What `expectedVersion` names; null for a provider of the config file not changed live */
    version: number | null;
    keys: {
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
  };
  /** Create or replace a provider (served by every process within 5 s); secrets are write-only */
  'PUT /admin/v1/providers/{name}': {
    name: string;
    type: string;
    baseUrl: string | null;
    concurrency?: number;
    enabled?: boolean;
    timeoutMs?: number;
    /** Secret-looking values (keys, secrets, tokens, headers) as hints */
    options?: { [key: string]: unknown };
    /** `live`: stored through the admin API, which wins over the config file */
    source: 'file' | 'live';
    /** What `expectedVersion` names; null for a provider of the config file not changed live */
    version: number | null;
    keys: {
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
  };
  /** Change some fields of a provider, such as `enabled`; a provider of the config file is copied into the live settings first */
  'PATCH /admin/v1/providers/{name}': {
    name: string;
    type: string;
    baseUrl: string | null;
    concurrency?: number;
    enabled?: boolean;
    timeoutMs?: number;
    /** Secret-looking values (keys, secrets, tokens, headers) as hints */
    options?: { [key: string]: unknown };
    /** `live`: stored through the admin API, which wins over the config file */
    source: 'file' | 'live';
    /** What `expectedVersion` names; null for a provider of the config file not changed live */
    version: number | null;
    keys: {
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
  };
  /** Delete a live provider and its keys (the config file's of the same name is served again) */
  'DELETE /admin/v1/providers/{name}': {
    deleted?: boolean;
  };
  /** Add a key to the pool (to rotate: add the new key, then switch the old one off) */
  'POST /admin/v1/providers/{name}/keys': {
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
  };
  /** Change a key's weight, label or switch */
  'PATCH /admin/v1/providers/{name}/keys/{keyId}': {
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
  };
  /** Delete a key from the pool */
  'DELETE /admin/v1/providers/{name}/keys/{keyId}': {
    deleted?: boolean;
  };
  /** Test every key of a provider with the cheapest real call its API offers (a model list, an account read): latency and the error in words. A passing key is healthy again (a key disabled by the upstream's refusal is re-enabled); a refused one is disabled as a real call would; the operator's switch is left as it is */
  'POST /admin/v1/providers/{name}/test': {
    provider: string;
    data: {
      keyId: string;
      hint: string;
      label: string | null;
      ok: boolean;
      latencyMs: number;
      /** What was called, such as `GET /v1/models` */
      call: string;
      /** What went wrong, in words */
      error: string | null;
      /** The upstream's HTTP status, when it answered */
      status?: number;
      /** The key's state after the test */
      state: 'healthy' | 'cooling' | 'disabled';
    }[];
  };
  /** Every model with a route of its own, with each entry's live state and share of traffic */
  'GET /admin/v1/routes': {
    data: {
      modelId: string;
      /** `default`: no route of its own, served by `local` */
      source: 'file' | 'live' | 'default';
      version: number | null;
      entries: {
        provider: string;
        /** The upstream model */
        model: string;
        /** Lower is tried first */
        priority: number;
        /** Share of first picks within its priority */
        weight: number;
        /** What the upstream charges here, priced like the catalog (text: USD per 1M tokens; media: USD per tier unit) */
        cost: {
          inputPrice?: string;
          outputPrice?: string;
          cachedInputPrice?: string;
          pricing?: {
            key: string;
            price: string;
          }[];
        } | null;
        /** A failover may move requests here even at a loss */
        allowLoss: boolean;
        /** Its cost is above the price (for media: on some tier); no failover moves a request here unless allowLoss */
        atLoss: boolean;
        state: 'healthy' | 'cooling' | 'disabled';
        lastError: string | null;
        lastErrorAt: string | null;
        callsLastHour: number;
        /** This entry's part of the route's calls in the last hour (0 to 1), counted by the process that answers */
        share: number;
        keys: {
          id: string;
          hint: string;
          state: 'healthy' | 'cooling' | 'disabled';
        }[];
      }[];
    }[];
  };
  /** A model's route as served now: entries by priority and weight, their state, recent error and share of the last hour's calls */
  'GET /admin/v1/routes/{modelId}': {
    modelId: string;
    /** `default`: no route of its own, served by `local` */
    source: 'file' | 'live' | 'default';
    version: number | null;
    entries: {
      provider: string;
      /** The upstream model */
      model: string;
      /** Lower is tried first */
      priority: number;
      /** Share of first picks within its priority */
      weight: number;
      /** What the upstream charges here, priced like the catalog (text: USD per 1M tokens; media: USD per tier unit) */
      cost: {
        inputPrice?: string;
        outputPrice?: string;
        cachedInputPrice?: string;
        pricing?: {
          key: string;
          price: string;
        }[];
      } | null;
      /** A failover may move requests here even at a loss */
      allowLoss: boolean;
      /** Its cost is above the price (for media: on some tier); no failover moves a request here unless allowLoss */
      atLoss: boolean;
      state: 'healthy' | 'cooling' | 'disabled';
      lastError: string | null;
      lastErrorAt: string | null;
      callsLastHour: number;
      /** This entry's part of the route's calls in the last hour (0 to 1), counted by the process that answers */
      share: number;
      keys: {
        id: string;
        hint: string;
        state: 'healthy' | 'cooling' | 'disabled';
      }[];
    }[];
  };
  /** Set a model's route (replaces the config file's for this model) */
  'PUT /admin/v1/routes/{modelId}': {
    modelId: string;
    /** `default`: no route of its own, served by `local` */
    source: 'file' | 'live' | 'default';
    version: number | null;
    entries: {
      provider: string;
      /** The upstream model */
      model: string;
      /** Lower is tried first */
      priority: number;
      /** Share of first picks within its priority */
      weight: number;
      /** What the upstream charges here, priced like the catalog (text: USD per 1M tokens; media: USD per tier unit) */
      cost: {
        inputPrice?: string;
        outputPrice?: string;
        cachedInputPrice?: string;
        pricing?: {
          key: string;
          price: string;
        }[];
      } | null;
      /** A failover may move requests here even at a loss */
      allowLoss: boolean;
      /** Its cost is above the price (for media: on some tier); no failover moves a request here unless allowLoss */
      atLoss: boolean;
      state: 'healthy' | 'cooling' | 'disabled';
      lastError: string | null;
      lastErrorAt: string | null;
      callsLastHour: number;
      /** This entry's part of the route's calls in the last hour (0 to 1), counted by the process that answers */
      share: number;
      keys: {
        id: string;
        hint: string;
        state: 'healthy' | 'cooling' | 'disabled';
      }[];
    }[];
  };
  /** Delete a model's live route (the config file's, or `local`, serves it again) */
  'DELETE /admin/v1/routes/{modelId}': {
    modelId: string;
    /** `default`: no route of its own, served by `local` */
    source: 'file' | 'live' | 'default';
    version: number | null;
    entries: {
      provider: string;
      /** The upstream model */
      model: string;
      /** Lower is tried first */
      priority: number;
      /** Share of first picks within its priority */
      weight: number;
      /** What the upstream charges here, priced like the catalog (text: USD per 1M tokens; media: USD per tier unit) */
      cost: {
        inputPrice?: string;
        outputPrice?: string;
        cachedInputPrice?: string;
        pricing?: {
          key: string;
          price: string;
        }[];
      } | null;
      /** A failover may move requests here even at a loss */
      allowLoss: boolean;
      /** Its cost is above the price (for media: on some tier); no failover moves a request here unless allowLoss */
      atLoss: boolean;
      state: 'healthy' | 'cooling' | 'disabled';
      lastError: string | null;
      lastErrorAt: string | null;
      callsLastHour: number;
      /** This entry's part of the route's calls in the last hour (0 to 1), counted by the process that answers */
      share: number;
      keys: {
        id: string;
        hint: string;
        state: 'healthy' | 'cooling' | 'disabled';
      }[];
    }[];
  };
  /** A model's setting as served now */
  'GET /admin/v1/models/{modelId}': {
    modelId: string;
    source: 'file' | 'live' | 'none';
    version: number | null;
    /** hidden, name, description, pricing or the token prices, as in the config file */
    setting: { [key: string]: unknown };
  };
  /** Set a model's visibility, name and prices (replaces the config file's setting of this model); requests created after it pay the new price, those created before pay their estimate */
  'PUT /admin/v1/models/{modelId}': {
    modelId: string;
    source: 'file' | 'live' | 'none';
    version: number | null;
    /** hidden, name, description, pricing or the token prices, as in the config file */
    setting: { [key: string]: unknown };
  };
  /** Delete a model's live setting (the config file's serves again) */
  'DELETE /admin/v1/models/{modelId}': {
    modelId: string;
    source: 'file' | 'live' | 'none';
    version: number | null;
    /** hidden, name, description, pricing or the token prices, as in the config file */
    setting: { [key: string]: unknown };
  };
  /** The live upstream settings as a file (the config file's shape), secrets out: keys as hints, secret options masked */
  'GET /admin/v1/upstreams/export': {
    format: string;
    version: number;
    exportedAt: string;
    providers: { [key: string]: unknown };
    routes: { [key: string]: unknown };
    models: { [key: string]: unknown };
  };
  /** Replace the whole live state with a file, in one change (what the file does not name is deleted) */
  'POST /admin/v1/upstreams/import': {
    providers: number;
    routes: number;
    models: number;
    missingKeys: string[];
  };
  /** Changes to the live upstream settings, newest first: who, when, before and after (secrets as hints) */
  'GET /admin/v1/audit': {
    data: {
      id: string;
      at: string;
      /** An admin's user id, or `admin-token` */
      actor: string;
      subjectKind: 'provider' | 'key' | 'route' | 'model' | 'import' | 'customer_group' | 'customer_group_member';
      subject: string;
      action: 'put' | 'patch' | 'delete' | 'import';
      /** The setting before, secrets as hints; null when there was none */
      before: unknown;
      /** The setting after, secrets as hints; null when deleted */
      after: unknown;
    }[];
    nextCursor: string | null;
  };
  /** Revenue, upstream cost, margin, failover rate and error rate per UTC day, model and route entry */
  'GET /admin/v1/reports/routes': {
    from: string;
    to: string;
    data: {
      /** UTC day the requests were made */
      date: string;
      model: string;
      kind: 'chat' | 'media';
      /** The entry that served, or the last one tried; null: no upstream was reached */
      provider: string | null;
      upstreamModel: string | null;
      requests: number;
      /** Ended in an upstream error: chat `failed` or `cut`, media tasks `failed` (refunded) */
      failed: number;
      /** Needed more than one route entry */
      failovers: number;
      /** Charged to clients (media: less refunds), integer micro-USD */
      revenueMicroUsd: string;
      /** What the upstream charged us, at the entry's cost when each request settled */
      upstreamCostMicroUsd: string;
      /** Revenue less upstream cost; null while some request of the row has no cost (`uncosted`) */
      marginMicroUsd: string | null;
      /** Requests that reached an upstream whose entry had no cost set */
      uncosted: number;
      failoverRate: number;
      errorRate: number;
      /** The entry is on the model's route now with a cost above the price: no failover moves requests onto it unless it allows a loss */
      atLoss: boolean;
    }[];
    totals: {
      requests: number;
      /** Ended in an upstream error: chat `failed` or `cut`, media tasks `failed` (refunded) */
      failed: number;
      /** Needed more than one route entry */
      failovers: number;
      /** Charged to clients (media: less refunds), integer micro-USD */
      revenueMicroUsd: string;
      /** What the upstream charged us, at the entry's cost when each request settled */
      upstreamCostMicroUsd: string;
      /** Revenue less upstream cost; null while some request of the row has no cost (`uncosted`) */
      marginMicroUsd: string | null;
      /** Requests that reached an upstream whose entry had no cost set */
      uncosted: number;
    };
  };
}
