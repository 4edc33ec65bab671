/**
 * Agent event types (AGENT.md, "Events"). Every event carries a per-conversation gap-free sequence;
 * clients ignore types they do not know, so adding one is compatible.
 */
export const AGENT_EVENT_TYPES = [
  'run.created',
  'run.status_changed',
  'run.step.started',
  'run.step.completed',
  'message.created',
  'message.delta',
  'message.completed',
  'artifact.created',
  'decision.required',
  'question.asked',
  'budget.updated',
  'conversation.updated',
  'run.completed',
  'run.failed',
  'run.cancelled',
] as const;
export type AgentEventType = (typeof AGENT_EVENT_TYPES)[number];

/**
 * What a lifecycle webhook may subscribe to: every type but the streaming text (`message.delta`
 * arrives many times a second; `message.completed` carries the whole text).
 */
export const WEBHOOK_EVENT_TYPES: readonly AgentEventType[] = AGENT_EVENT_TYPES.filter((t) => t !== 'message.delta');

export function isAgentEventType(value: string): value is AgentEventType {
  return (AGENT_EVENT_TYPES as readonly string[]).includes(value);
}

/** An event as stored, served over SSE and replayed by event-history, and posted to webhooks. */
export interface AgentEvent {
  /** `evt_…`: the same id on SSE, in the history and as `webhook-id`. */
  id: string;
  sequence: number;
  type: AgentEventType;
  conversationId: string;
  runId: string | null;
  createdAt: string;
  data: Record<string, unknown>;
}
