/**
 * Generated from the gateway's OpenAPI document (GET /api/v1/openapi.json) by npm run gen:web-types
 * (scripts/gen-web-api-types.ts). Do not edit: change the route's response schema under src/http/routes
 * and regenerate. test/unit/web/web-api-types.test.ts fails while this file is not current.
 */

/** The body of each of these operations' successful JSON answer, by `METHOD /path`. */
export interface TextResponses {
  /** Count the input tokens of a message (Anthropic protocol), free */
  'POST /api/v1/messages/count_tokens': {
    input_tokens: number;
    estimated?: boolean;
  };
}
