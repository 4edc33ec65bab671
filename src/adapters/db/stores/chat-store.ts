/** The chat store (ports/chat-store.port.ts) over Kysely, for SQLite and PostgreSQL alike. */
import type { ChatStore } from '../../../ports/chat-store.port.ts';
import {
  abandonChatRequest,
  deferChatSettlement,
  findChatCharge,
  findChatHold,
  findStaleChatHolds,
  findStaleChatRequests,
  touchChatHolds,
} from '../ledger/chat-holds.repository.ts';
import { executorOf } from '../schema.ts';

/** Stateless: the transactions are the store's own (executorOf checks it at run time). */
export const kyselyChatStore: ChatStore = {
  markHoldsAlive: (tx, ids, now) => touchChatHolds(executorOf(tx), ids, now),
  deferSettlement: (tx, id, settle) => deferChatSettlement(executorOf(tx), id, settle),
  findStaleHolds: (tx, seenBefore, limit) => findStaleChatHolds(executorOf(tx), seenBefore, limit),
  findStaleRequests: (tx, seenBefore, limit) => findStaleChatRequests(executorOf(tx), seenBefore, limit),
  abandonRequest: (tx, id, now, createdAt) => abandonChatRequest(executorOf(tx), id, now, createdAt),
  findHold: (tx, id) => findChatHold(executorOf(tx), id),
  findCharge: (tx, id) => findChatCharge(executorOf(tx), id),
};
