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
      runId: string;
      conversationId: string;
      messageId: string;
      runNumber: number;
      status: 'queued' | 'running' | 'waiting_for_clarification' | 'waiting_for_model_approval' | 'waiting_for_budget' | 'waiting_for_media' | 'stopping' | 'completed' | 'failed' | 'cancelled';
      waitReason: string | null;
      mode: 'auto' | 'manual';
      /** The text model driving the run now (a fallback after a failure) */
      orchestratorModelId: string;
      selectedModelId: string | null;
      /** Model changes approved during the run, by modality */
      approvedModels: { [key: string]: string };
      queuePosition: number | null;
      canSteer: boolean;
      pendingSteering: number;
      budget: {
        /** micro-USD (decimal integer string) */
        limitMicroUsd: string;
        /** micro-USD (decimal integer string) */
        settledMicroUsd: string;
        /** micro-USD (decimal integer string) */
        committedMicroUsd: string;
        /** micro-USD (decimal integer string) */
        remainingMicroUsd: string;
        version: number;
        /** Waiting for budget: the limit that lets the run go on */
        neededMicroUsd: string | null;
      };
      costs: {
        /** micro-USD (decimal integer string) */
        settledMicroUsd: string;
        /** micro-USD (decimal integer string) */
        committedMicroUsd: string;
        operations: {
          operationId: string;
          kind: 'chat' | 'generation';
          stepId: string;
          model: string;
          state: 'committed' | 'settled' | 'released';
          /** A generation operation: its task id */
          generationId: string | null;
          /** A chat operation: its request id */
          chatRequestId: string | null;
          /** micro-USD (decimal integer string) */
          estimateMicroUsd: string;
          /** micro-USD (decimal integer string) */
          costMicroUsd: string;
          createdAt: string;
          settledAt: string | null;
        }[];
      };
      steps: {
        stepId: string;
        position: number;
        kind: 'model' | 'tool' | 'steer' | 'title' | 'extract' | 'analysis' | 'subtask' | 'skill' | 'notice';
        name: string;
        status: 'running' | 'waiting' | 'completed' | 'failed' | 'cancelled';
        toolCallId: string | null;
        input: unknown;
        /** null while the step runs */
        output: unknown;
        /** micro-USD (decimal integer string) */
        costMicroUsd: string;
        startedAt: string;
        finishedAt: string | null;
      }[];
      /** What the user must be told (a file whose modality cannot be analysed) */
      notices: string[];
      pendingActions: {
        pendingActionId: string;
        kind: 'question' | 'model_change';
        status: 'pending' | 'answered' | 'accepted' | 'declined' | 'cancelled' | 'expired';
        version: number;
        createdAt: string;
        expiresAt: string | null;
        resolvedAt: string | null;
        /** A question: its id (the questionId of a reply) */
        questionId?: string;
        /** A question: what the run asks */
        question?: string;
        /** A question: the answers offered (may be empty) */
        choices?: string[];
        /** A model change: what a decision must echo */
        proposalHash?: string;
        /** A model change: what is proposed */
        proposal?: {
          modality?: string;
          fromModelId?: string | null;
          toModelId?: string;
          reason?: string;
          [key: string]: unknown;
        };
      }[];
      /** The pending actions already resolved */
      decisions: {
        pendingActionId: string;
        kind: 'question' | 'model_change';
        status: 'pending' | 'answered' | 'accepted' | 'declined' | 'cancelled' | 'expired';
        version: number;
        createdAt: string;
        expiresAt: string | null;
        resolvedAt: string | null;
        /** A question: its id (the questionId of a reply) */
        questionId?: string;
        /** A question: what the run asks */
        question?: string;
        /** A question: the answers offered (may be empty) */
        choices?: string[];
        /** A model change: what a decision must echo */
        proposalHash?: string;
        /** A model change: what is proposed */
        proposal?: {
          modality?: string;
          fromModelId?: string | null;
          toModelId?: string;
          reason?: string;
          [key: string]: unknown;
        };
      }[];
      /** The settings the run started with */
      settings: { [key: string]: unknown };
      profileId: string | null;
      project: {
        projectId: string;
        version: number;
      } | null;
      error: {
        code: string;
        message: string | null;
      } | null;
      revision: number;
      version: number;
      createdAt: string;
      startedAt: string | null;
      finishedAt: string | null;
      updatedAt: string;
    };
  };
  /** A run's result: main outcome, revision and artifacts (no model call) */
  'GET /api/v1/agent/runs/{runId}/result': {
    code: number;
    data: {
      runId: string;
      status: 'queued' | 'running' | 'waiting_for_clarification' | 'waiting_for_model_approval' | 'waiting_for_budget' | 'waiting_for_media' | 'stopping' | 'completed' | 'failed' | 'cancelled';
      mainOutcome: {
        text: string;
        artifactIds: string[];
      } | null;
      revision: number;
      artifacts: {
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
      /** What the user must be told (a file whose modality cannot be analysed) */
      notices: string[];
      /** The value fitting the run's outputSchema; null without a schema, while it is made, or when extraction failed */
      structuredResult: unknown;
      /** SHA-256 of the outputSchema's RFC 8785 canonical JSON */
      schemaHash: string | null;
      /** The steps the structured result was made from */
      sourceSteps: string[];
      extraction: {
        status: 'pending' | 'succeeded' | 'failed';
        method: 'deterministic' | 'model' | null;
        /** Extraction calls: the first and at most one repair */
        attempts: number;
        costMicroUsd: string;
        error: string | null;
      } | null;
      error: {
        code: string;
        message: string | null;
      } | null;
    };
  };
  /** Change a run's limit (optimistic versioning on the budget) */
  'PATCH /api/v1/agent/runs/{runId}/budget': {
    code: number;
    data: {
      /** micro-USD (decimal integer string) */
      limitMicroUsd: string;
      /** micro-USD (decimal integer string) */
      settledMicroUsd: string;
      /** micro-USD (decimal integer string) */
      committedMicroUsd: string;
      /** micro-USD (decimal integer string) */
      remainingMicroUsd: string;
      version: number;
    };
  };
}
