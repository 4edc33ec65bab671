/**
 * Generated from the gateway's OpenAPI document (GET /api/v1/openapi.json) by npm run gen:web-types
 * (scripts/gen-web-api-types.ts). Do not edit: change the route's response schema under src/http/routes
 * and regenerate. test/unit/web/web-api-types.test.ts fails while this file is not current.
 */

/** The body of each of these operations' successful JSON answer, by `METHOD /path`. */
export interface AgentModelsResponses {
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
}
