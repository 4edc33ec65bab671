/**
 * The agent's store as the engine and the agent's services see it (docs/architecture.md, "The store
 * behind ports"). Every method takes the transaction first: the `tx` of `AgentWriter.run`, so that a
 * state change, its events and its jobs commit together, or `UnitOfWork.direct` for a lone read.
 *
 * A step's row is written only here: `startStep` makes it (at its position; of two workers that both
 * think they run the run's next step, one insert fails and that one stops), `finishStep` ends it by
 * compare-and-set on its status.
 */
import type { StepKind, StepStatus } from '../domain/agent/step-status.ts';
import type { AgentStepsRow } from './store-rows/agent.rows.ts';
import type { StoreTransaction } from './store-transaction.port.ts';

export type StepRow = AgentStepsRow;

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

export interface AgentStore {
  startStep(tx: StoreTransaction, step: NewStep): Promise<void>;
  /**
   * Ends a step by compare-and-set on its status: from the statuses the step table allows, narrowed
   * to `from`. False when it had already ended or the move is not allowed: nothing changed.
   */
  finishStep(tx: StoreTransaction, stepId: string, from: readonly StepStatus[], end: StepEnd): Promise<boolean>;
}
