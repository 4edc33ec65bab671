/**
 * The agent's store as the engine and the agent's services see it (docs/architecture.md, "The store
 * behind ports"). Every method takes the transaction first: the `tx` of `AgentWriter.run`, so that a
 * state change, its events and its jobs commit together, or `UnitOfWork.direct` for a lone read.
 *
 * A step's row is written only here: `startStep` makes it (at its position; of two workers that both
 * think they run the run's next step, one insert fails and that one stops), `finishStep` ends it by
 * compare-and-set on its status. The run's money moves with its operation: `commitOperation` and
 * `closeOperation` change the run's committed and settled sums in the statement set that writes the
 * operation, so no caller can move one without the other.
 */
import type { OperationKind } from '../domain/agent/operation-state.ts';
import type { RunStatus } from '../domain/agent/run-status.ts';
import type { StepKind, StepStatus } from '../domain/agent/step-status.ts';
import type { ChatHold } from './ledger.port.ts';
import type {
  AgentArtifactsRow,
  AgentConversationsRow,
  AgentEventsRow,
  AgentMessagesRow,
  AgentOperationsRow,
  AgentPendingActionsRow,
  AgentRunsRow,
  AgentStepsRow,
  AgentWebhooksRow,
} from './store-rows/agent.rows.ts';
import type { TasksRow } from './store-rows/media.rows.ts';
import type { StoreTransaction } from './store-transaction.port.ts';

export type RunRow = AgentRunsRow;
export type StepRow = AgentStepsRow;
export type OperationRow = AgentOperationsRow;
export type PendingActionRow = AgentPendingActionsRow;
export type ArtifactRow = AgentArtifactsRow;
export type EventRow = AgentEventsRow;
export type MessageRow = AgentMessagesRow;
export type ConversationRow = AgentConversationsRow;

/** The columns a move or an update of a run may set besides its status and version. */
export type RunChanges = Partial<Omit<RunRow, 'id' | 'status' | 'version'>>;

/** A run's money as the run view and budget.updated show it. */
export interface RunBudget {
  limitMicro: number;
  settledMicro: number;
  committedMicro: number;
  budgetVersion: number;
  version: number;
}

/** A new step: running or waiting, or already ended (a steer, a recorded tool result) when `output` or an ended status is given. */
export interface NewStep {
  id: string;
  runId: string;
  position: number;
  kind: StepKind;
  name: string;
  status: StepStatus;
  toolCallId?: string | null;
  /** Stored as JSON. */
  input: unknown;
  /** Stored as JSON; absent: none yet. */
  output?: unknown;
  costMicro?: number;
  startedAt: number;
  /** Absent: ends at `startedAt` when the status is an ended one, otherwise open. */
  finishedAt?: number | null;
}

/** How a step ends. */
export interface StepEnd {
  status: StepStatus;
  /** Stored as JSON; absent: left as it was. */
  output?: unknown;
  /** Absent: left as it was. */
  costMicro?: number;
  finishedAt: number | null;
}

/** An event to store: the sequence is the conversation's next, taken by `appendEvent`. */
export type NewEventRow = Omit<EventRow, 'sequence'>;

/** Who an appended event belongs to (its webhooks are that owner's), and its sequence. */
export interface AppendedEvent {
  sequence: number;
  userId: string;
  storefront: string;
  projectId: string | null;
}

/** What a run may read of other conversations: the referenced ones, up to the moment the run captured. */
export interface ContextBounds {
  owner: { userId: string; storefront: string };
  sources: Array<{ conversationId: string; until: number }>;
}

export interface ContextFragment {
  conversationId: string;
  messageId: string;
  body: string;
  createdAt: number;
}

export interface AgentStore {
  // Runs.
  findRun(tx: StoreTransaction, id: string): Promise<RunRow | undefined>;
  /**
   * The status move by compare-and-set: only from the statuses the run table allows into `to`,
   * narrowed by `guard.from`, and only at `guard.version` when given. The new version, or undefined
   * when the run was elsewhere (nothing changed).
   */
  moveRun(tx: StoreTransaction, id: string, to: RunStatus, changes: RunChanges, guard?: { from?: RunStatus[]; version?: number }): Promise<number | undefined>;
  /** Changes columns other than the status by compare-and-set on the version; the new version, or undefined. */
  updateRun(tx: StoreTransaction, id: string, version: number, changes: RunChanges): Promise<number | undefined>;
  listQueuedRuns(tx: StoreTransaction, conversationId: string): Promise<RunRow[]>;
  /** The conversation's runs before `runNo`, the latest `limit` of them, oldest first. */
  listEarlierRuns(tx: StoreTransaction, conversationId: string, runNo: number, limit: number): Promise<RunRow[]>;
  /** Something scheduled the run: its wake counter moves, so a worker about to set it aside steps it again. */
  wakeRun(tx: StoreTransaction, id: string): Promise<void>;
  /** True when nothing scheduled the run since `wakeSeq` was read (on PostgreSQL the row stays locked until the transaction ends). */
  noWakeSince(tx: StoreTransaction, id: string, wakeSeq: number): Promise<boolean>;
  /** The run's result changed (an artifact arrived): clients compare revisions. */
  markRunRevised(tx: StoreTransaction, id: string): Promise<void>;

  // Steps: the one writer of a step row.
  startStep(tx: StoreTransaction, step: NewStep): Promise<void>;
  /**
   * Ends a step by compare-and-set on its status: from the statuses the step table allows, narrowed
   * to `from`. False when it had already ended or the move is not allowed: nothing changed.
   */
  finishStep(tx: StoreTransaction, stepId: string, from: readonly StepStatus[], end: StepEnd): Promise<boolean>;
  /** The run's steps in position order. */
  listSteps(tx: StoreTransaction, runId: string): Promise<StepRow[]>;
  findSteps(tx: StoreTransaction, ids: string[]): Promise<StepRow[]>;
  /** A run that ends or stops: its steps waiting for the user are cancelled. */
  cancelWaitingSteps(tx: StoreTransaction, runId: string, now: number): Promise<void>;

  // Operations and the run's money.
  /**
   * Commits the operation at its estimate: the run's committed sum grows only while the run is
   * running and settled + committed + estimate stays within its limit, and the operation row is
   * written with it. The run's money afterwards, or undefined when it does not fit (nothing written).
   */
  commitOperation(tx: StoreTransaction, op: OperationRow): Promise<RunBudget | undefined>;
  /**
   * Closes a committed operation once (compare-and-set on its state): `settled` at `costMicro`, or
   * `released`; its commitment leaves the run's committed sum and the cost joins the settled sum.
   * The run's money afterwards, or undefined when it was closed before (nothing changed).
   */
  closeOperation(tx: StoreTransaction, op: OperationRow, state: 'settled' | 'released', costMicro: number, now: number): Promise<RunBudget | undefined>;
  listRunOperations(tx: StoreTransaction, runId: string): Promise<OperationRow[]>;
  findOperationByRef(tx: StoreTransaction, kind: OperationKind, refId: string): Promise<OperationRow | undefined>;

  // Pending actions (questions, model-change proposals).
  addPendingAction(tx: StoreTransaction, action: PendingActionRow): Promise<void>;
  listRunActions(tx: StoreTransaction, runId: string): Promise<PendingActionRow[]>;
  /** A run that ends or stops: its pending actions are cancelled. */
  cancelPendingActions(tx: StoreTransaction, runId: string, now: number): Promise<void>;

  // Artifacts.
  /** False when the artifact of that generation's output was recorded before. */
  addArtifactOnce(tx: StoreTransaction, artifact: ArtifactRow): Promise<boolean>;
  listRunArtifacts(tx: StoreTransaction, runId: string): Promise<ArtifactRow[]>;
  listConversationArtifacts(tx: StoreTransaction, conversationId: string, ids: string[]): Promise<ArtifactRow[]>;
  listRecentConversationArtifacts(tx: StoreTransaction, conversationId: string, limit: number): Promise<ArtifactRow[]>;

  // Events.
  /**
   * Stores the event at the conversation's next sequence (the sequence's row update orders the
   * conversation's events, so they commit in order and without gaps). Undefined when the
   * conversation was deleted: nothing is written.
   */
  appendEvent(tx: StoreTransaction, event: NewEventRow): Promise<AppendedEvent | undefined>;
  /** The owner's webhook destinations that are live. */
  listEventWebhooks(tx: StoreTransaction, userId: string, storefront: string): Promise<AgentWebhooksRow[]>;
  listEventsAfter(tx: StoreTransaction, conversationId: string, afterSequence: number, limit: number): Promise<EventRow[]>;
  lastEventSequence(tx: StoreTransaction, conversationId: string): Promise<number>;
  lastEventSequences(tx: StoreTransaction, conversationIds: string[]): Promise<Array<{ id: string; event_seq: number }>>;

  // The conversation as a run uses it.
  findConversation(tx: StoreTransaction, id: string): Promise<ConversationRow | undefined>;
  /** Sets a generated title unless the user named the conversation; true when set. */
  setGeneratedTitle(tx: StoreTransaction, conversationId: string, title: string): Promise<boolean>;
  touchConversation(tx: StoreTransaction, conversationId: string, now: number): Promise<void>;
  /** Takes the conversation's active-run slot for `runId` when it is free; false otherwise. */
  claimActiveRun(tx: StoreTransaction, conversationId: string, runId: string): Promise<boolean>;
  /** Frees the slot if `runId` holds it. */
  releaseActiveRun(tx: StoreTransaction, conversationId: string, runId: string): Promise<void>;
  findMessage(tx: StoreTransaction, id: string): Promise<MessageRow | undefined>;
  /** False when the conversation has that client message id already. */
  addMessageOnce(tx: StoreTransaction, message: MessageRow): Promise<boolean>;
  /** Makes the text findable by the context tools. */
  indexSearchDocument(tx: StoreTransaction, doc: { docId: string; conversationId: string; body: string }): Promise<void>;
  /**
   * Full-text search over the bounded sources, latest first. The index's query syntax differs by
   * engine: `expression` writes the query for the one named (undefined: nothing to look for).
   */
  searchContext(tx: StoreTransaction, bounds: ContextBounds, expression: (postgres: boolean) => string | undefined, limit: number): Promise<ContextFragment[]>;
  /** One message of the bounded sources, or undefined when the run may not read it. */
  readContextMessage(tx: StoreTransaction, bounds: ContextBounds, messageId: string): Promise<{ conversationId: string; text: string } | undefined>;

  // What a run's operations refer to.
  /** The media task a generation operation dispatched. */
  findGeneration(tx: StoreTransaction, taskId: string): Promise<TasksRow | undefined>;
  /** What a text call was charged, from its record (written before the call returned). */
  findCallCharge(tx: StoreTransaction, chatRequestId: string): Promise<{ status: string; costMicro: number } | undefined>;
  /** A text call's hold, while it has one. */
  findCallHold(tx: StoreTransaction, chatRequestId: string): Promise<ChatHold | undefined>;
}
