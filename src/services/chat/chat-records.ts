/**
 * The records of the chat service: the request types (ports/ledger.port.ts) and the hold rows of
 * running requests (src/adapters/db/ledger/chat-holds.repository.ts). Releasing an abandoned hold
 * moves money, so it goes through the book.
 */
import type { Executor } from '../../adapters/db/schema.ts';
import type { ChatHold } from '../../ports/ledger.port.ts';
import { ledgerBook } from '../ledger.service.ts';

export type { ChatRequestOutcome, ChatRequestStatus, NewChatRequest } from '../../ports/ledger.port.ts';
export {
  abandonChatRequest,
  deferChatSettlement,
  findChatCharge,
  findChatHold,
  findStaleChatHolds,
  findStaleChatRequests,
  type StaleChatHold,
  type StaleChatRequest,
  touchChatHolds,
} from '../../adapters/db/ledger/chat-holds.repository.ts';

/**
 * Releases an abandoned request's hold in full and records it as `abandoned`, in the caller's
 * transaction; false when the hold was gone (the request settled meanwhile).
 */
export function abandonChatHold(tx: Executor, hold: ChatHold, now: number): Promise<boolean> {
  return ledgerBook.releaseAbandonedHold(tx, hold, now);
}

/** Settles a hold its serving process left to the job with the estimate it wrote (deferChatSettlement). */
export function settleDeferredChatHold(tx: Executor, hold: ChatHold, now: number): Promise<boolean> {
  return ledgerBook.settleDeferredHold(tx, hold, now);
}
