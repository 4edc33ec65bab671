/**
 * What the agent's views and controls read of runs (docs/architecture.md, "The store behind ports"):
 * a run with its steps, operations and pending actions, its artifacts, the event history, and the
 * user's balance a resume or a new run is checked against. Only reads: the agent store
 * (agent-store.port.ts) writes runs and steps. Every method takes the transaction first.
 */
import type { AgentArtifactsRow, AgentEventsRow, AgentOperationsRow, AgentPendingActionsRow, AgentRunsRow, AgentStepsRow } from './store-rows/agent.rows.ts';
import type { UsersRow } from './store-rows/foundation.rows.ts';
import type { LibraryOwner } from './agent-library-store.port.ts';
import type { StoreTransaction } from './store-transaction.port.ts';

export type RunRow = AgentRunsRow;
export type ArtifactRow = AgentArtifactsRow;

/** A run as GET /agent/runs/{id} shows it, read on one snapshot: its totals and its operations always agree. */
export interface RunSnapshot {
  run: AgentRunsRow;
  steps: AgentStepsRow[];
  operations: AgentOperationsRow[];
  actions: AgentPendingActionsRow[];
  /** For a queued run: 1 = next to start; otherwise null. */
  queuePosition: number | null;
}

/** A run's result with its artifacts and steps, read on one snapshot. */
export interface RunResultSnapshot {
  run: AgentRunsRow;
  artifacts: AgentArtifactsRow[];
  steps: AgentStepsRow[];
}

export interface AgentViews {
  /**
   * The owner's run with what its view shows, on one snapshot of the store (given `direct`, the
   * reads get a read-only snapshot of their own; given a transaction, they run in it). Undefined when
   * it is not the owner's.
   */
  readRunSnapshot(tx: StoreTransaction, owner: LibraryOwner, runId: string): Promise<RunSnapshot | undefined>;
  /** As `readRunSnapshot`, for the result view. */
  readResultSnapshot(tx: StoreTransaction, owner: LibraryOwner, runId: string): Promise<RunResultSnapshot | undefined>;
  findRun(tx: StoreTransaction, runId: string): Promise<AgentRunsRow | undefined>;
  findOwnedRun(tx: StoreTransaction, owner: LibraryOwner, runId: string): Promise<AgentRunsRow | undefined>;
  listSteps(tx: StoreTransaction, runId: string): Promise<AgentStepsRow[]>;
  findPendingAction(tx: StoreTransaction, id: string): Promise<AgentPendingActionsRow | undefined>;
  /** Runs waiting behind the conversation's active one. */
  countQueuedRuns(tx: StoreTransaction, conversationId: string): Promise<number>;
  /** Runs of the conversation not yet ended. */
  listUnfinishedRuns(tx: StoreTransaction, conversationId: string): Promise<AgentRunsRow[]>;
  findOwnedArtifact(tx: StoreTransaction, owner: LibraryOwner, artifactId: string): Promise<AgentArtifactsRow | undefined>;
  /** The owner's newest artifacts not expired at `now`. */
  listRecentOwnedArtifacts(tx: StoreTransaction, owner: LibraryOwner, now: number, limit: number): Promise<AgentArtifactsRow[]>;
  /** The conversation's oldest event still kept, or undefined when it has none. */
  oldestEventSequence(tx: StoreTransaction, conversationId: string): Promise<number | undefined>;
  listEventsAfter(tx: StoreTransaction, conversationId: string, afterSequence: number, limit: number): Promise<AgentEventsRow[]>;
  /** The user whose balance a new run or a resume is checked against. */
  findUser(tx: StoreTransaction, userId: string): Promise<UsersRow | undefined>;
}
