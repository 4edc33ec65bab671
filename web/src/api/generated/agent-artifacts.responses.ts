/**
 * Generated from the gateway's OpenAPI document (GET /api/v1/openapi.json) by npm run gen:web-types
 * (scripts/gen-web-api-types.ts). Do not edit: change the route's response schema under src/http/routes
 * and regenerate. test/unit/web/web-api-types.test.ts fails while this file is not current.
 */

/** The body of each of these operations' successful JSON answer, by `METHOD /path`. */
export interface AgentArtifactsResponses {
  /** Your newest artifacts that have not expired, newest first */
  'GET /api/v1/agent/artifacts': {
    code: number;
    data: {
      artifactId: string;
      conversationId: string;
      runId: string;
      /** The source generation (task id); null without one */
      generationId: string | null;
      outputIndex: number | null;
      type: string;
      contentType: string;
      url: string;
      createdAt: string;
      expiresAt: string | null;
    }[];
  };
  /** An artifact with its source generation and output index */
  'GET /api/v1/agent/artifacts/{artifactId}': {
    code: number;
    data: {
      artifactId: string;
      conversationId: string;
      runId: string;
      /** The source generation (task id); null without one */
      generationId: string | null;
      outputIndex: number | null;
      type: string;
      contentType: string;
      url: string;
      createdAt: string;
      expiresAt: string | null;
    };
  };
}
