/**
 * What a run waits for from the user (a question, a model-change proposal): `pending` until it is
 * resolved once, by the user or by the run ending.
 */
import { movableFrom, type StatusMoves } from './status-moves.ts';

export const PENDING_ACTION_KINDS = ['question', 'model_change'] as const;
export type PendingActionKind = (typeof PENDING_ACTION_KINDS)[number];

export const PENDING_ACTION_STATUSES = ['pending', 'answered', 'accepted', 'declined', 'cancelled', 'expired'] as const;
export type PendingActionStatus = (typeof PENDING_ACTION_STATUSES)[number];

export const PENDING_ACTION_MOVES: StatusMoves<PendingActionStatus> = {
  pending: [],
  answered: ['pending'],
  accepted: ['pending'],
  declined: ['pending'],
  cancelled: ['pending'],
  // Never stored: the run view shows a pending proposal past its `expires_at` as expired.
  expired: [],
};

/** The statuses a pending action may be in for it to move to `to`, narrowed to `from` when given. */
export function pendingActionMovableFrom(to: PendingActionStatus, from?: readonly PendingActionStatus[]): PendingActionStatus[] {
  return movableFrom(PENDING_ACTION_MOVES, to, from);
}
