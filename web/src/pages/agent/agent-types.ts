/** The agent API's shapes as the dashboard reads them (docs/agent.md). Money is micro-USD strings. */
// Type-only: the event shapes are the gateway's (src/domain/agent/agent-events.ts); no server code reaches the bundle.
import type { AgentEvent as GatewayAgentEvent } from '../../../../src/domain/agent/agent-events.ts';

export type { AgentEventType, AgentEventDataMap } from '../../../../src/domain/agent/agent-events.ts';

export interface Conversation {
  conversationId: string;
  title: string | null;
  titleSource: string;
  mode: 'auto' | 'manual';
  selectedModelId: string | null;
  profileId: string | null;
  projectId: string | null;
  activeRunId: string | null;
  lastEventSequence: number;
  lastActivityAt: string;
  createdAt: string;
  version: number;
}

export interface ConversationPage {
  items: Conversation[];
  nextCursor: string | null;
}

export interface ThreadMessage {
  messageId: string;
  runId: string | null;
  role: 'user' | 'assistant';
  kind: string;
  text: string;
  content?: Array<{ type: string; text?: string; attachmentId?: string }>;
  createdAt: string;
}

export interface Artifact {
  artifactId: string;
  runId: string;
  generationId: string | null;
  outputIndex: number | null;
  type: string;
  contentType: string;
  url: string;
  createdAt: string;
}

export interface RunResult {
  runId: string;
  status: string;
  mainOutcome: { text: string; artifactIds: string[] } | null;
  revision: number;
  artifacts: Artifact[];
  error: { code: string; message: string } | null;
  structuredResult?: unknown;
  /** What the user must be told (a file whose modality cannot be analysed). */
  notices?: string[];
  extraction?: { status: string; method: string | null; attempts: number; costMicroUsd: string; error: string | null } | null;
}

export interface RunStep {
  stepId: string;
  position: number;
  kind: string;
  name: string;
  status: string;
  input: unknown;
  output: unknown;
  costMicroUsd: string;
  startedAt: string;
  finishedAt: string | null;
}

export interface RunOperation {
  operationId: string;
  kind: 'chat' | 'generation';
  model: string;
  state: string;
  generationId: string | null;
  estimateMicroUsd: string;
  costMicroUsd: string;
}

export interface PendingAction {
  pendingActionId: string;
  kind: 'question' | 'model_change';
  status: string;
  version: number;
  question?: string;
  choices?: string[];
  proposalHash?: string;
  proposal?: { modality?: string; fromModelId?: string | null; toModelId?: string; reason?: string };
  expiresAt: string | null;
}

export interface RunView {
  runId: string;
  conversationId: string;
  runNumber: number;
  status: string;
  waitReason: string | null;
  orchestratorModelId: string;
  queuePosition: number | null;
  canSteer: boolean;
  budget: { limitMicroUsd: string; settledMicroUsd: string; committedMicroUsd: string; remainingMicroUsd: string; neededMicroUsd: string | null; version: number };
  costs: { settledMicroUsd: string; committedMicroUsd: string; operations: RunOperation[] };
  steps: RunStep[];
  /** What the user must be told (a file whose modality cannot be analysed). */
  notices?: string[];
  pendingActions: PendingAction[];
  decisions: PendingAction[];
  error: { code: string; message: string } | null;
  createdAt: string;
  finishedAt: string | null;
}

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

/** A USD amount typed by a person ("0.5") as micro-USD, or undefined when it is not a positive amount. */
export function usdToMicroString(text: string): string | undefined {
  const trimmed = text.trim();
  if (!/^\d+(\.\d{1,6})?$/.test(trimmed)) return undefined;
  const [whole = '0', fraction = ''] = trimmed.split('.');
  const micro = BigInt(whole) * 1_000_000n + BigInt(fraction.padEnd(6, '0'));
  return micro > 0n ? micro.toString() : undefined;
}
