/**
 * Generated from the gateway's OpenAPI document (GET /api/v1/openapi.json) by npm run gen:web-types
 * (scripts/gen-web-api-types.ts). Do not edit: change the route's response schema under src/http/routes
 * and regenerate. test/unit/web/web-api-types.test.ts fails while this file is not current.
 */

/** The body of each of these operations' successful JSON answer, by `METHOD /path`. */
export interface AgentRunsResponses {
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
}
