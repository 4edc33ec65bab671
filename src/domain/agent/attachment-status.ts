/**
 * An attachment: `pending` until its upload completes (then its original is immutable), `expired`
 * when the upload never completed in time or the completed reference outlived its retention.
 */
import { movableFrom, type StatusMoves } from './status-moves.ts';

export const ATTACHMENT_STATUSES = ['pending', 'completed', 'expired'] as const;
export type AttachmentStatus = (typeof ATTACHMENT_STATUSES)[number];

export const ATTACHMENT_MOVES: StatusMoves<AttachmentStatus> = {
  pending: [],
  completed: ['pending'],
  expired: ['pending', 'completed'],
};

/** The statuses an attachment may be in for it to move to `to`, narrowed to `from` when given. */
export function attachmentMovableFrom(to: AttachmentStatus, from?: readonly AttachmentStatus[]): AttachmentStatus[] {
  return movableFrom(ATTACHMENT_MOVES, to, from);
}
