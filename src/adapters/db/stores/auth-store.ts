import type { AuthStore, NewSignInLink, SessionRow, SessionWithUser } from '../../../ports/auth-store.port.ts';
import type { StoreTransaction } from '../../../ports/store-transaction.port.ts';
import {
  consumeSignInLink,
  deleteExpiredSessions,
  deleteOtherSessions,
  deleteSession,
  findEndedSessionIds,
  findSessionByTokenHash,
  insertSession,
  insertSignInLink,
  listSessionAddresses,
  renewSession,
  setAdminFlag,
  setFirstPasswordHash,
  setPasswordHash,
} from '../repositories/auth.repository.ts';
import { executorOf } from '../schema.ts';

/** Sessions, sign-in links and passwords over Kysely, for SQLite and PostgreSQL alike (stateless). */
export const kyselyAuthStore: AuthStore = {
  addSession: (tx: StoreTransaction, row: SessionRow) => insertSession(executorOf(tx), row),
  findSessionByTokenHash: (tx: StoreTransaction, tokenHash: string): Promise<SessionWithUser | undefined> => findSessionByTokenHash(executorOf(tx), tokenHash),
  renewSession: (tx, id, now, expiresAt) => renewSession(executorOf(tx), id, now, expiresAt),
  endSession: (tx, id) => deleteSession(executorOf(tx), id),
  endOtherSessions: (tx, userId, keepId) => deleteOtherSessions(executorOf(tx), userId, keepId),
  listSessionAddresses: (tx, userId) => listSessionAddresses(executorOf(tx), userId),
  deleteExpiredSessions: (tx, now) => deleteExpiredSessions(executorOf(tx), now),
  findEndedSessionIds: (tx, ids, now) => findEndedSessionIds(executorOf(tx), ids, now),
  setPasswordHash: (tx, userId, passwordHash) => setPasswordHash(executorOf(tx), userId, passwordHash),
  setFirstPasswordHash: (tx, userId, passwordHash) => setFirstPasswordHash(executorOf(tx), userId, passwordHash),
  setAdminFlag: (tx, userId, isAdmin) => setAdminFlag(executorOf(tx), userId, isAdmin),
  addSignInLink: (tx, link: NewSignInLink) => insertSignInLink(executorOf(tx), link),
  consumeSignInLink: (tx, tokenHash, now) => consumeSignInLink(executorOf(tx), tokenHash, now),
};
