/**
 * A run's steps: their kinds, their statuses and the moves between them. A step is inserted
 * `running` (a call in flight), `waiting` (for the user: a question, a proposal) or already
 * `completed` (a result known at once); it ends once, by compare-and-set.
 */
import { movableFrom, type StatusMoves } from './status-moves.ts';

/** `notice`: something the user must be told that is not an action (a file that cannot be analysed). */
export const STEP_KINDS = ['model', 'tool', 'steer', 'title', 'extract', 'analysis', 'subtask', 'skill', 'notice'] as const;
export type StepKind = (typeof STEP_KINDS)[number];

export const STEP_STATUSES = ['running', 'waiting', 'completed', 'failed', 'cancelled'] as const;
export type StepStatus = (typeof STEP_STATUSES)[number];

export const STEP_MOVES: StatusMoves<StepStatus> = {
  running: [],
  waiting: [],
  completed: ['running', 'waiting'],
  // A wait ends with an answer or with the run (cancelled); only a call in flight fails.
  failed: ['running'],
  cancelled: ['running', 'waiting'],
};

/** The statuses a step may be in for it to move to `to`, narrowed to `from` when given. */
export function stepMovableFrom(to: StepStatus, from?: readonly StepStatus[]): StepStatus[] {
  return movableFrom(STEP_MOVES, to, from);
}
