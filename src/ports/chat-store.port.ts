/**
 * The chat requests' records as the chat services see them (docs/architecture.md, "The store behind
 * ports"): the heartbeat of running requests, the hold a failed settlement leaves to the chat_settle
 * job, and what that job reads to find requests whose process died. The money of a hold moves only
 * through the ledger (ports/ledger.port.ts: the chat ledger holds and settles, the book releases
 * what the job finds). Every method takes the transaction first (`UnitOfWork.direct` for a lone
 * statement).
 */
import type { ChatHold } from './ledger.port.ts';
import type { ChatRequestsRow } from './store-rows/chat.rows.ts';
import type { StoreTransaction } from './store-transaction.port.ts';

export type { ChatHold } from './ledger.port.ts';

/** A request held before migration 009 (its hold a `chat_hold` ledger entry), still `in_progress`. */
export type StaleChatRequest = Pick<ChatRequestsRow, 'id' | 'user_id' | 'hold_micro' | 'model' | 'created_at'>;

/** What a settled request was charged. */
export interface ChatCharge {
  status: string;
  costMicro: number;
}

export interface ChatStore {
  /** Marks these running requests alive (the chat_settle job leaves them); a hold left to the job stays stale. */
  markHoldsAlive(tx: StoreTransaction, ids: readonly string[], now: number): Promise<void>;
  /**
   * The live settlement failed for good: leaves the hold to the chat_settle job with the charge to
   * make and the status meant, and marks it stale so that the job's next run settles it.
   */
  deferSettlement(tx: StoreTransaction, id: string, settle: { chargeMicro: number; status: string }): Promise<void>;
  /** Holds not marked alive since `seenBefore`, oldest first, at most `limit`. */
  findStaleHolds(tx: StoreTransaction, seenBefore: number, limit: number): Promise<ChatHold[]>;
  /** Requests held before migration 009, still `in_progress`, not marked since `seenBefore`, oldest first. */
  findStaleRequests(tx: StoreTransaction, seenBefore: number, limit: number): Promise<StaleChatRequest[]>;
  /**
   * Records a request held before migration 009 as `abandoned`, by compare-and-set on `in_progress`;
   * false when it had left that state (settled meanwhile). Its hold goes back through the book.
   */
  abandonRequest(tx: StoreTransaction, id: string, now: number, createdAt: number): Promise<boolean>;
  /** A running request's hold row (undefined once it settled, or when it was never held). */
  findHold(tx: StoreTransaction, id: string): Promise<ChatHold | undefined>;
  /** What a settled request was charged (undefined while it runs, or when it never started). */
  findCharge(tx: StoreTransaction, id: string): Promise<ChatCharge | undefined>;
}
