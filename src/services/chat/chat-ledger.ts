/**
 * The two writes of every chat request, on the hot path: the hold and the settlement.
 *
 * A hold is a reservation on the account, not a movement of money (docs/decisions.md, "Holds on the
 * account"): the guarded `held_micro += hold` (refused when balance − held cannot cover it) and the
 * request's `chat_holds` row, which records it for the crash job. The settlement deletes that row
 * (its compare-and-set: one winner between the live settlement and the crash job), releases the hold
 * and takes the exact cost from the balance in one guarded update, writes the request's
 * `chat_requests` row once, with its outcome, and the `chat_charge` ledger entry of the cost (none
 * when nothing is charged), which carries the balance after it as every entry does. When the cost is
 * above what the balance covers (usage above the hold), what it covers is taken and the rest recorded.
 *
 * Two implementations of the same rules, both with group commit (ledger-queue.ts): on PostgreSQL one
 * call of a database function per batch (chat-ledger.postgres.ts); on SQLite, a writer thread with its own connection and group commit
 * (chat-ledger.thread.ts), so that neither the statements nor the commits run on the event loop.
 */
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { isPostgres } from '../../adapters/db/dialect-of.ts';
import type { Schema } from '../../adapters/db/schema.ts';
import { sqliteFileOf } from '../../adapters/db/sqlite-file.ts';
import { PostgresChatLedger } from './chat-ledger.postgres.ts';
import { SqliteChatLedgerThread } from './chat-ledger.thread.ts';
import type { ChatRequestOutcome, NewChatRequest } from './chat-records.ts';

/**
 * What a settlement did: 'done'; 'taken' when the hold was gone (the crash job settled the request
 * first: nothing was written); or the part of the cost the balance could not cover (usage above the
 * hold, when the prompt estimate was short): what it could cover was charged, the rest recorded.
 */
export type SettleResult = 'done' | 'taken' | { uncollectedMicro: number };

export interface ChatLedger {
  /**
   * Resolves once the hold is committed. Rejects with insufficient_balance (or user_not_found) when it
   * does not fit; nothing is written then.
   */
  hold(request: NewChatRequest): Promise<void>;
  /**
   * Settles the request held as `request`; resolves once committed. `linger`: nobody waits for it (a
   * whole answer already sent), so it may wait a few milliseconds to share a commit.
   */
  settle(request: NewChatRequest, outcome: ChatRequestOutcome, note: string, linger: boolean): Promise<SettleResult>;
  /** Writes what is pending, then stops (the writer thread ends). */
  close(): Promise<void>;
}

export function createChatLedger(db: Kysely<Schema>, logger: Logger): ChatLedger {
  if (isPostgres(db)) return new PostgresChatLedger(db);
  const file = sqliteFileOf(db);
  if (!file) throw new Error('the chat ledger on SQLite needs a database file (not :memory:) for its writer thread');
  return new SqliteChatLedgerThread(file, logger);
}
