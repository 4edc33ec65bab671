/**
 * Generated from the gateway's OpenAPI document (GET /api/v1/openapi.json) by npm run gen:web-types
 * (scripts/gen-web-api-types.ts). Do not edit: change the route's response schema under src/http/routes
 * and regenerate. test/unit/web/web-api-types.test.ts fails while this file is not current.
 */

/** The body of each of these operations' successful JSON answer, by `METHOD /path`. */
export interface AgentWorkflowsResponses {
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
}
