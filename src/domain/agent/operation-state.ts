/**
 * A run's operations (a chat call, a generation): committed at their estimate, then closed exactly
 * once, settled at their real cost or released (AGENT.md "Budget").
 */
import { movableFrom, type StatusMoves } from './status-moves.ts';

export const OPERATION_KINDS = ['chat', 'generation'] as const;
export type OperationKind = (typeof OPERATION_KINDS)[number];

export const OPERATION_STATES = ['committed', 'settled', 'released'] as const;
export type OperationState = (typeof OPERATION_STATES)[number];

export const OPERATION_MOVES: StatusMoves<OperationState> = {
  committed: [],
  settled: ['committed'],
  released: ['committed'],
};

/** The states an operation may be in for it to move to `to`, narrowed to `from` when given. */
export function operationMovableFrom(to: OperationState, from?: readonly OperationState[]): OperationState[] {
  return movableFrom(OPERATION_MOVES, to, from);
}
