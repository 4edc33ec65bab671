/**
 * Picks the chat ledger (ports/ledger.port.ts, ChatLedger) of the engine behind `db`. Both implement
 * the same rules (domain/ledger/settlement.ts) with group commit (ledger-queue.ts): on PostgreSQL one
 * call of a database function per batch (postgres-chat-ledger.ts); on SQLite, a writer thread with
 * its own connection and group commit (sqlite-chat-ledger.thread.ts), so that neither the statements
 * nor the commits run on the event loop. The choice lives here, apart from both, so that neither
 * implementation imports the other or this file.
 */
import type { Logger } from 'pino';
import type { ChatLedger } from '../../../ports/ledger.port.ts';
import type { DatabaseHandle } from '../open-database.ts';
import { PostgresChatLedger } from './postgres-chat-ledger.ts';
import { SqliteChatLedgerThread } from './sqlite-chat-ledger.thread.ts';

export function createChatLedger(database: DatabaseHandle, logger: Logger): ChatLedger {
  if (database.dialect === 'postgres') return new PostgresChatLedger(database.db);
  const file = database.sqliteFile;
  if (!file) throw new Error('the chat ledger on SQLite needs a database file (not :memory:) for its writer thread');
  return new SqliteChatLedgerThread(file, logger);
}
