/**
 * Generated from the gateway's OpenAPI document (GET /api/v1/openapi.json) by npm run gen:web-types
 * (scripts/gen-web-api-types.ts). Do not edit: change the route's response schema under src/http/routes
 * and regenerate. test/unit/web/web-api-types.test.ts fails while this file is not current.
 */

/** The body of each of these operations' successful JSON answer, by `METHOD /path`. */
export interface AgentProfilesResponses {
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
}
