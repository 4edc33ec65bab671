/**
 * The book as the services see it. Money is integer micro-USD; every change goes through a guarded
 * balance (src/domain/ledger/settlement.ts): a movement never leaves the balance below what running
 * requests hold, a hold only fits in what is spendable. Each movement is written at most once: a
 * (kind, reference) pair is unique, a hold's row is the compare-and-set of its settlement.
 *
 * Two faces, one book:
 * - LedgerBook: debits, refunds and credits (`post`) in the caller's transaction, one entry each, and
 *   the release of a chat hold nobody will settle (the crash job);
 * - ChatLedger: the hot path of a chat request, hold then settle, batched (group commit) by the engine.
 *
 * The implementations live in src/adapters/db/ledger/ (one per engine where they differ);
 * test/contract/ledger-port.contract.test.ts runs this port on SQLite and PostgreSQL.
 */
import type { LedgerKind } from '../domain/ledger/ledger-kinds.ts';
import type { ChatHoldsRow } from './store-rows/chat.rows.ts';
import type { LedgerEntriesRow } from './store-rows/foundation.rows.ts';
import type { StoreTransaction } from './store-transaction.port.ts';

/** One row of the book: the movement and the balance right after it. */
export type LedgerEntry = LedgerEntriesRow;

export interface LedgerMovement {
  userId: string;
  kind: LedgerKind;
  reference: string;
  /** Positive adds money (credit, refund), negative takes it (debit, charge). */
  amountMicro: number;
  note?: string | null;
  /**
   * The API key the money is spent through (migration 027): a debit counts against the key's spend
   * cap in the same transaction (refused with key_spend_cap_reached, nothing written), a refund gives
   * it back to the key's rows of `keySpendAt` (the month of the debit it returns; default: now).
   */
  apiKeyId?: string | null;
  keySpendAt?: number;
  /**
   * On an organization's account, the member who moved the money without a key (a session's top-up
   * or redeem code). Absent: the member of `apiKeyId`'s key, if it is an organization's.
   */
  memberId?: string | null;
}

export interface PostedEntry {
  entry: LedgerEntry;
  /** False when (kind, reference) had been written before: nothing changed this time. */
  created: boolean;
}

/**
 * A running chat request's hold, as its row records it (deleted when it settles); `settle_micro` is set
 * when the live settlement failed (migration 032).
 */
export type ChatHold = ChatHoldsRow;

export interface LedgerBook {
  /**
   * Writes one entry and changes the balance by the same amount, in the caller's transaction. The
   * balance never goes below what is held (insufficient_balance), a debit through a key never takes
   * the key's spend past its cap (key_spend_cap_reached); a repeated (kind, reference) changes
   * nothing and returns the first entry.
   */
  post(tx: StoreTransaction, movement: LedgerMovement, now?: number): Promise<PostedEntry>;
  /**
   * Takes the account's row lock first (PostgreSQL; SQLite has one writer). Lock order (issue 17): a
   * transaction that moves money and also changes a task locks the account before the task.
   */
  lockAccount(tx: StoreTransaction, userId: string): Promise<void>;
  /** The entry of (kind, reference), if it was written. */
  find(db: StoreTransaction, kind: LedgerKind, reference: string): Promise<LedgerEntry | undefined>;
  /**
   * Releases the hold of a request whose process died, in full, and records the request as
   * `abandoned`, in the caller's transaction; false when the hold was gone (it settled meanwhile).
   */
  releaseAbandonedHold(tx: StoreTransaction, hold: ChatHold, now: number): Promise<boolean>;
  /**
   * Settles a hold its live settlement left to the job (`settle_micro` set) with that charge, never
   * above the hold, in the caller's transaction; false when the hold was gone.
   */
  settleDeferredHold(tx: StoreTransaction, hold: ChatHold, now: number): Promise<boolean>;
}

export type ChatRequestStatus = 'in_progress' | 'succeeded' | 'failed' | 'cut' | 'client_closed' | 'abandoned';

/** A chat request as its hold records it. */
export interface NewChatRequest {
  id: string;
  userId: string;
  apiKeyId: string | null;
  model: string;
  protocol: string;
  stream: boolean;
  holdMicro: number;
  now: number;
}

/** How a chat request ended, and what it cost (`costMicro`, before the balance's cover). */
export interface ChatRequestOutcome {
  status: Exclude<ChatRequestStatus, 'in_progress'>;
  provider: string | null;
  upstreamModel: string | null;
  attempts: number;
  inputTokens: number;
  outputTokens: number;
  cachedTokens: number;
  cacheCreationTokens: number;
  usageEstimated: boolean;
  costMicro: number;
  /** What the served entry's upstream charged us (route-cost.ts); null when the entry has no cost set. */
  upstreamCostMicro: number | null;
  stopReason: string | null;
  latencyMs: number;
  firstByteMs: number | null;
  errorCode: string | null;
  errorMessage: string | null;
  finishedAt: number;
}

/** What a hold did: a refusal writes nothing. */
/** `member_spend_cap_reached`: above the monthly cap of the key's member inside an organization. */
export type HoldResult = 'held' | 'insufficient_balance' | 'key_spend_cap_reached' | 'member_spend_cap_reached' | 'user_not_found';

/**
 * What a settlement did: 'done'; 'taken' when the hold was gone (the crash job settled the request
 * first: nothing was written); or the part of the cost the balance could not cover (usage above the
 * hold, when the prompt estimate was short): what it could cover was charged, the rest recorded.
 */
export type SettleResult = 'done' | 'taken' | { uncollectedMicro: number };

/**
 * The two writes of every chat request, on the hot path. A hold is a reservation on the account, not
 * a movement of money (docs/decisions.md, "Holds on the account"): the guarded `held_micro += hold`
 * and the request's `chat_holds` row. The settlement deletes that row (its compare-and-set: one winner
 * between the live settlement and the crash job), releases the hold and takes what the balance covers
 * of the cost (settlement.ts, `collectable`) in one guarded update, writes the request's
 * `chat_requests` row once, with its outcome, and the `chat_charge` entry (none when nothing is
 * charged), which carries the balance after it as every entry does.
 */
export interface ChatLedger {
  /**
   * Resolves once the hold is committed. Rejects with insufficient_balance (or user_not_found) when it
   * does not fit, with key_spend_cap_reached when it does not fit in the key's cap (a hold counts
   * against the cap until it settles); nothing is written then.
   */
  hold(request: NewChatRequest): Promise<void>;
  /**
   * Settles the request held as `request`; resolves once committed. `linger`: nobody waits for it (a
   * whole answer already sent), so it may wait a few milliseconds to share a commit.
   */
  settle(request: NewChatRequest, outcome: ChatRequestOutcome, note: string, linger: boolean): Promise<SettleResult>;
  /** Writes what is pending, then stops (a writer thread ends). */
  close(): Promise<void>;
}
