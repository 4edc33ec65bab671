/** The ports the chat_settle job takes (its store, unit of work and book), over a test gateway's database. */
import type { Kysely } from 'kysely';
import { kyselyLedgerBook } from '../../src/adapters/db/ledger/ledger-book.ts';
import type { Schema } from '../../src/adapters/db/schema.ts';
import { kyselyChatStore } from '../../src/adapters/db/stores/chat-store.ts';
import { kyselyUnitOfWork } from '../../src/adapters/db/stores/kysely-unit-of-work.ts';
import type { ChatSettleDeps } from '../../src/services/chat/chat-settle.job.ts';

export function chatSettlePorts(db: Kysely<Schema>): Pick<ChatSettleDeps, 'store' | 'uow' | 'book'> {
  return { store: kyselyChatStore, uow: kyselyUnitOfWork(db), book: kyselyLedgerBook };
}
