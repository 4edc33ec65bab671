/**
 * Generated from the gateway's OpenAPI document (GET /api/v1/openapi.json) by npm run gen:web-types
 * (scripts/gen-web-api-types.ts). Do not edit: change the route's response schema under src/http/routes
 * and regenerate. test/unit/web/web-api-types.test.ts fails while this file is not current.
 */

/** The body of each of these operations' successful JSON answer, by `METHOD /path`. */
export interface AgentSettingsResponses {
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
}
