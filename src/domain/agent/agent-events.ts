/**
 * Agent event types (AGENT.md, "Events") and what each carries. Every event carries a
 * per-conversation gap-free sequence; clients ignore types they do not know, so adding one is
 * compatible, and so is adding an optional field to a payload. Payloads are built only by the
 * constructors at the end of this file, one per type, so a payload's shape is its type's.
 *
 * This file is read by the dashboard too (type-only, web/src/pages/agent/agent-types.ts): it imports
 * only other type files of domain/agent that need nothing from Node.
 */
import type { Modality } from './modality.ts';
import type { RunStatus, WaitReason } from './run-status.ts';
import { statusEventType } from './run-status.ts';
import type { StepKind, StepStatus } from './step-status.ts';
import type { ToolResult } from './tool-result.ts';

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

/** `run.created`: a message started a run, or queued it behind the active one (rule 2). */
export interface RunCreatedData {
  status: RunStatus;
  messageId: string;
  maxCostMicroUsd: string;
  orchestratorModelId: string;
  mode: 'auto' | 'manual';
  /** Only for a queued run: its place in the conversation's queue (1 is next). */
  queuePosition?: number;
}

/**
 * `run.status_changed`, `run.completed`, `run.failed`, `run.cancelled`: one compare-and-set of the run's
 * status (the type follows `to`, `statusEventType`), with the details of why.
 */
export interface RunMovedData extends RunMoveDetail {
  from: RunStatus;
  to: RunStatus;
  waitReason: WaitReason | null;
}

/** What a status move says beyond from and to: what the run waits for, what was decided, how it ended. */
export interface RunMoveDetail {
  /** The question the run waits for, or that the reply answered. */
  questionId?: string;
  /** The proposal the run waits for, or that was decided. */
  pendingActionId?: string;
  decision?: 'accepted' | 'declined';
  /** The model the run goes on with after a decision. */
  modelId?: string;
  /** Waiting for budget: what the next operation needs, and what the limit has left. */
  neededMicroUsd?: string;
  remainingMicroUsd?: string;
  error?: { code: string; message: string };
  mainOutcome?: MainOutcomeData;
}

export interface MainOutcomeData {
  text: string;
  artifactIds: string[];
}

/** `run.step.started` of a call (model, title, extraction, analysis, subtask): its hold on the run's limit. */
export interface CallStepStartedData {
  stepId: string;
  position: number;
  kind: Exclude<StepKind, 'tool'>;
  /** The model called. */
  name: string;
  holdMicroUsd: string;
}

/** `run.step.started` of a media tool call: the generation dispatched at its estimate. */
export interface ToolStepStartedData {
  stepId: string;
  position: number;
  kind: 'tool';
  /** The tool called. */
  name: string;
  toolCallId: string;
  model: string;
  generationId: string;
  estimateMicroUsd: string;
  notes: string[];
}

export type StepStartedData = CallStepStartedData | ToolStepStartedData;

/**
 * `run.step.completed`: a step ended (completed, failed or cancelled). The fields after `status`
 * depend on the kind: a model turn has its text and tool calls, a tool step its result, a call its
 * cost or its error, a steer the message it took in, a skill its version, an analysis that could not
 * be made why.
 */
export interface StepCompletedData {
  stepId: string;
  kind: StepKind;
  status: Exclude<StepStatus, 'running' | 'waiting'>;
  /** The tool, or the skill. */
  name?: string;
  costMicroUsd?: string;
  error?: { code: string; message: string };
  text?: string;
  toolCalls?: Array<{ id: string; name: string }>;
  result?: ToolResult;
  /** A notice step: what the user is told (rule 11: a file whose modality cannot be analysed). */
  notice?: string;
  messageId?: string;
  version?: string;
  unavailable?: string;
}

/** `message.created`: a user's message entered the conversation. */
export interface MessageCreatedData {
  messageId: string;
  role: 'user';
  /** How the message entered: new_run, followup, steer, reply or answer. */
  kind: string;
  text: string;
}

/** `message.delta`: more of the orchestrator's answer as it streams. */
export interface MessageDeltaData {
  stepId: string;
  text: string;
}

/** `message.completed`: a run's answer became an assistant message of the conversation. */
export interface MessageCompletedData {
  messageId: string;
  role: 'assistant';
  text: string;
  artifactIds: string[];
}

/** `artifact.created`: a file a generation of the run made. */
export interface ArtifactCreatedData {
  artifactId: string;
  generationId: string | null;
  outputIndex: number | null;
  /** The file type (image, video, audio). */
  type: string;
  contentType: string;
  url: string;
  stepId: string;
}

/** What a model-change proposal proposes (rules 6 and 10). */
export interface ModelChangeProposal {
  modality: Modality;
  fromModelId: string;
  toModelId: string;
  reason: string;
  requiredReferenceImages?: number;
  /** `tool`: the orchestrator asked; `tool_route`: the selected model has no verified tool-calling route (rule 10). */
  origin: 'tool' | 'tool_route';
}

/** `decision.required`: the run waits for the user to accept or decline a proposal. */
export interface DecisionRequiredData {
  pendingActionId: string;
  kind: 'model_change';
  version: number;
  proposalHash: string;
  proposal: ModelChangeProposal;
  expiresAt: string;
}

/** `question.asked`: the run waits for the user's answer. */
export interface QuestionAskedData {
  questionId: string;
  stepId: string;
  question: string;
  choices?: string[];
}

/** `budget.updated`: the run's money moved (micro-USD strings) or its limit changed (`version`). */
export interface BudgetUpdatedData {
  limitMicroUsd: string;
  settledMicroUsd: string;
  committedMicroUsd: string;
  remainingMicroUsd: string;
  version: number;
}

/** `conversation.updated`: a new title (the user's, with the conversation's version, or generated), or new context references. */
export type ConversationUpdatedData =
  | { title: string; titleSource: 'user'; version: number }
  | { title: string; titleSource: 'generated' }
  | { contextReferences: number; contextVersion: number };

/** The payload of each event type. */
export interface AgentEventDataMap {
  'run.created': RunCreatedData;
  'run.status_changed': RunMovedData;
  'run.step.started': StepStartedData;
  'run.step.completed': StepCompletedData;
  'message.created': MessageCreatedData;
  'message.delta': MessageDeltaData;
  'message.completed': MessageCompletedData;
  'artifact.created': ArtifactCreatedData;
  'decision.required': DecisionRequiredData;
  'question.asked': QuestionAskedData;
  'budget.updated': BudgetUpdatedData;
  'conversation.updated': ConversationUpdatedData;
  'run.completed': RunMovedData;
  'run.failed': RunMovedData;
  'run.cancelled': RunMovedData;
}

/** A type with its payload: narrowing on `type` types `data`. */
export type AgentEventBody = { [T in AgentEventType]: { type: T; data: AgentEventDataMap[T] } }[AgentEventType];

/** Where an event belongs: its conversation, and its run (null for the conversation's own events). */
export interface EventScope {
  conversationId: string;
  runId: string | null;
}

/** An event to append (the writer gives it its id, sequence and time). */
export type NewAgentEvent = EventScope & AgentEventBody;

/** An event as stored, served over SSE and replayed by event-history, and posted to webhooks. */
export type AgentEvent = {
  /** `evt_…`: the same id on SSE, in the history and as `webhook-id`. */
  id: string;
  sequence: number;
  conversationId: string;
  runId: string | null;
  createdAt: string;
} & AgentEventBody;

export function runCreated(scope: EventScope, data: RunCreatedData): NewAgentEvent {
  return { ...scope, type: 'run.created', data };
}

/** A status move: `run.status_changed`, or the terminal type of its `to`. */
export function runMoved(scope: EventScope, data: RunMovedData): NewAgentEvent {
  return { ...scope, type: statusEventType(data.to), data };
}

export function stepStarted(scope: EventScope, data: StepStartedData): NewAgentEvent {
  return { ...scope, type: 'run.step.started', data };
}

export function stepCompleted(scope: EventScope, data: StepCompletedData): NewAgentEvent {
  return { ...scope, type: 'run.step.completed', data };
}

export function messageCreated(scope: EventScope, data: MessageCreatedData): NewAgentEvent {
  return { ...scope, type: 'message.created', data };
}

export function messageDelta(scope: EventScope, data: MessageDeltaData): NewAgentEvent {
  return { ...scope, type: 'message.delta', data };
}

export function messageCompleted(scope: EventScope, data: MessageCompletedData): NewAgentEvent {
  return { ...scope, type: 'message.completed', data };
}

export function artifactCreated(scope: EventScope, data: ArtifactCreatedData): NewAgentEvent {
  return { ...scope, type: 'artifact.created', data };
}

export function decisionRequired(scope: EventScope, data: DecisionRequiredData): NewAgentEvent {
  return { ...scope, type: 'decision.required', data };
}

export function questionAsked(scope: EventScope, data: QuestionAskedData): NewAgentEvent {
  return { ...scope, type: 'question.asked', data };
}

export function budgetUpdated(scope: EventScope, data: BudgetUpdatedData): NewAgentEvent {
  return { ...scope, type: 'budget.updated', data };
}

/** The conversation's own event: no run. */
export function conversationUpdated(conversationId: string, data: ConversationUpdatedData): NewAgentEvent {
  return { conversationId, runId: null, type: 'conversation.updated', data };
}
