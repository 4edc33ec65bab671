/**
 * What the agent engine still reads of the chat requests' records directly (engine/model-step.ts,
 * engine/reconcile.ts), in its own transaction: a request's charge, its hold row, and the release of
 * an abandoned hold. The chat services go through the chat store (ports/chat-store.port.ts) and the
 * ledger book; this file goes once the engine takes those ports too (ChatStore.findCharge, findHold,
 * LedgerBook.releaseAbandonedHold).
 */
import { kyselyLedgerBook } from '../../adapters/db/ledger/ledger-book.ts';
import type { Executor } from '../../adapters/db/schema.ts';
import type { ChatHold } from '../../ports/ledger.port.ts';

export type { ChatRequestOutcome, ChatRequestStatus, NewChatRequest } from '../../ports/ledger.port.ts';
export { findChatCharge, findChatHold } from '../../adapters/db/ledger/chat-holds.repository.ts';

/**
 * Releases an abandoned request's hold in full and records it as `abandoned`, in the caller's
 * transaction; false when the hold was gone (the request settled meanwhile).
 */
export function abandonChatHold(tx: Executor, hold: ChatHold, now: number): Promise<boolean> {
  return kyselyLedgerBook.releaseAbandonedHold(tx, hold, now);
}
