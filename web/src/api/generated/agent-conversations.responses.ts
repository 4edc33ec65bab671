/**
 * Generated from the gateway's OpenAPI document (GET /api/v1/openapi.json) by npm run gen:web-types
 * (scripts/gen-web-api-types.ts). Do not edit: change the route's response schema under src/http/routes
 * and regenerate. test/unit/web/web-api-types.test.ts fails while this file is not current.
 */

/** The body of each of these operations' successful JSON answer, by `METHOD /path`. */
export interface AgentConversationsResponses {
  /** Your conversations, latest activity first */
  'GET /api/v1/agent/conversations': {
    code: number;
    data: {
      items: {
        conversationId: string;
        title: string | null;
        titleSource: 'user' | 'generated' | null;
        mode: 'auto' | 'manual';
        selectedModelId: string | null;
        projectId: string | null;
        profileId: string | null;
        defaultWorkflowId: string | null;
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
        version: number;
        activeRunId: string | null;
        lastEventSequence: number;
        lastActivityAt: string;
        createdAt: string;
        /** GET of one conversation only: its queued follow-ups */
        queuedRuns?: number;
      }[];
      nextCursor: string | null;
    };
  };
  /** Create a conversation */
  'POST /api/v1/agent/conversations': {
    code: number;
    data: {
      conversationId: string;
      title: string | null;
      titleSource: 'user' | 'generated' | null;
      mode: 'auto' | 'manual';
      selectedModelId: string | null;
      projectId: string | null;
      profileId: string | null;
      defaultWorkflowId: string | null;
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
      version: number;
      activeRunId: string | null;
      lastEventSequence: number;
      lastActivityAt: string;
      createdAt: string;
      /** GET of one conversation only: its queued follow-ups */
      queuedRuns?: number;
    };
  };
  /** One conversation */
  'GET /api/v1/agent/conversations/{conversationId}': {
    code: number;
    data: {
      conversationId: string;
      title: string | null;
      titleSource: 'user' | 'generated' | null;
      mode: 'auto' | 'manual';
      selectedModelId: string | null;
      projectId: string | null;
      profileId: string | null;
      defaultWorkflowId: string | null;
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
      version: number;
      activeRunId: string | null;
      lastEventSequence: number;
      lastActivityAt: string;
      createdAt: string;
      /** GET of one conversation only: its queued follow-ups */
      queuedRuns?: number;
    };
  };
  /** Rename a conversation (optimistic versioning) */
  'PATCH /api/v1/agent/conversations/{conversationId}': {
    code: number;
    data: {
      conversationId: string;
      title: string | null;
      titleSource: 'user' | 'generated' | null;
      mode: 'auto' | 'manual';
      selectedModelId: string | null;
      projectId: string | null;
      profileId: string | null;
      defaultWorkflowId: string | null;
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
      version: number;
      activeRunId: string | null;
      lastEventSequence: number;
      lastActivityAt: string;
      createdAt: string;
      /** GET of one conversation only: its queued follow-ups */
      queuedRuns?: number;
    };
  };
  /** The messages of a conversation, oldest first (pages go back in time) */
  'GET /api/v1/agent/conversations/{conversationId}/messages': {
    code: number;
    data: {
      items: {
        messageId: string;
        runId: string | null;
        role: 'user' | 'assistant';
        kind: 'new_run' | 'followup' | 'steer' | 'reply' | 'answer';
        content: {
          /** text; attachment (a user's file); artifact (a file the run made, in its reply) */
          type: 'text' | 'attachment' | 'artifact';
          text?: string;
          attachmentId?: string;
          artifactId?: string;
          [key: string]: unknown;
        }[];
        text: string;
        createdAt: string;
      }[];
      /** The before of the next (older) page; null on the first message */
      nextBefore: string | null;
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
}
