/** The agent's event shapes and run statuses as the dashboard reads them (docs/agent.md). Money is micro-USD strings. */
// Type-only: the event shapes are the gateway's (src/domain/agent/agent-events.ts); no server code reaches the bundle.
import type { AgentEvent as GatewayAgentEvent } from '../../../../src/domain/agent/agent-events.ts';

export type { AgentEventType, AgentEventDataMap } from '../../../../src/domain/agent/agent-events.ts';

// The conversation, message, run and result shapes are generated from the gateway's response schemas.
export type { Artifact, Conversation, ConversationPage, PendingAction, RunOperation, RunResult, RunStep, RunView, ThreadMessage } from '../../api/index.ts';

/**
 * An event of the conversation's stream, typed per type by the gateway's own declaration (narrowing
 * on `type` types `data`), or one of the stream's control frames: `resync` (the cursor is older than
 * the events kept) and `closed` (the conversation was deleted), which carry nothing.
 */
export type AgentEvent = GatewayAgentEvent | StreamControlEvent;

export interface StreamControlEvent {
  id: string;
  sequence: number;
  type: 'resync' | 'closed';
  conversationId: string;
  runId: string | null;
  createdAt: string;
  data: Record<string, never>;
}

export const TERMINAL_RUN_STATUSES = new Set(['completed', 'failed', 'cancelled']);

export const RUN_STATUS_LABELS: Record<string, string> = {
  queued: 'Queued',
  running: 'Working',
  waiting_for_clarification: 'Waiting for your answer',
  waiting_for_model_approval: 'Waiting for your decision',
  waiting_for_budget: 'Waiting for budget',
  waiting_for_media: 'Waiting for media',
  stopping: 'Stopping',
  completed: 'Completed',
  failed: 'Failed',
  cancelled: 'Cancelled',
};
