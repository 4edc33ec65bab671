/**
 * The messages between the SQLite chat ledger (sqlite-chat-ledger.thread.ts, on the event loop) and its
 * writer thread (sqlite-chat-ledger.worker.ts): apart from both so that neither imports the other.
 */
import type { ChatRequestOutcome, HoldResult, NewChatRequest, SettleResult } from '../../../ports/ledger.port.ts';

/** An operation for the writer thread. */
export type LedgerOperation =
  | { seq: number; kind: 'hold'; request: NewChatRequest }
  | { seq: number; kind: 'settle'; request: NewChatRequest; outcome: ChatRequestOutcome; note: string; entryId: string };

/** Main thread → writer thread. */
export type LedgerMessage = { operations: LedgerOperation[] } | 'stop';

/** Writer thread → main thread: each operation's answer, by `seq`. */
export interface LedgerReplies {
  replies: Array<[seq: number, reply: LedgerReply]>;
}

/** A failure keeps SQLite's result code across the thread boundary: a full disk or a busy file must still read as one (db-errors.ts). */
export type LedgerReply = { ok: true; value: HoldResult | SettleResult } | { ok: false; message: string; errcode?: number };

export interface LedgerWorkerData {
  path: string;
  lock: SharedArrayBuffer;
}
