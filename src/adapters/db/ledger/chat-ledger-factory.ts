/**
 * Picks the chat ledger (ports/ledger.port.ts, ChatLedger) of the engine behind `db`. Both implement
 * the same rules (domain/ledger/settlement.ts) with group commit (ledger-queue.ts): on PostgreSQL one
 * call of a database function per batch (postgres-chat-ledger.ts); on SQLite, a writer thread with
 * its own connection and group commit (sqlite-chat-ledger.thread.ts), so that neither the statements
 * nor the commits run on the event loop. The choice lives here, apart from both, so that neither
 * implementation imports the other or this file.
 */
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { ChatLedger } from '../../../ports/ledger.port.ts';
import { isPostgres } from '../dialect-of.ts';
import type { Schema } from '../schema.ts';
import { sqliteFileOf } from '../sqlite-file.ts';
import { PostgresChatLedger } from './postgres-chat-ledger.ts';
import { SqliteChatLedgerThread } from './sqlite-chat-ledger.thread.ts';

export function createChatLedger(db: Kysely<Schema>, logger: Logger): ChatLedger {
  if (isPostgres(db)) return new PostgresChatLedger(db);
  const file = sqliteFileOf(db);
  if (!file) throw new Error('the chat ledger on SQLite needs a database file (not :memory:) for its writer thread');
  return new SqliteChatLedgerThread(file, logger);
}
