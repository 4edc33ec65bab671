/**
 * Dashboard sign-in as the auth services see it: sessions (only the SHA-256 of the cookie token is
 * stored), one-time sign-in links, passwords and the admin flag. Every method takes the transaction
 * first, as in account-store.port.ts; test/contract/account-store.contract.test.ts runs it on both engines.
 */
import type { SessionsRow } from './store-rows/sessions.rows.ts';
import type { StoreTransaction } from './store-transaction.port.ts';

export type SessionRow = SessionsRow;

/** A session with what authorization needs of its user, read in one query. */
export interface SessionWithUser extends SessionRow {
  is_admin: number;
}

export interface NewSignInLink {
  token_hash: string;
  user_id: string;
  created_at: number;
  expires_at: number;
}

export interface AuthStore {
  addSession(tx: StoreTransaction, row: SessionRow): Promise<void>;
  findSessionByTokenHash(tx: StoreTransaction, tokenHash: string): Promise<SessionWithUser | undefined>;
  /** Slides the session's idle expiry. */
  renewSession(tx: StoreTransaction, id: string, now: number, expiresAt: number): Promise<void>;
  /** Ends a session (sign-out): it is gone. */
  endSession(tx: StoreTransaction, id: string): Promise<void>;
  /** Ends every session of the user but `keepId`; returns the ids ended. */
  endOtherSessions(tx: StoreTransaction, userId: string, keepId: string | undefined): Promise<string[]>;
  /** The addresses the user's sessions were opened from. */
  listSessionAddresses(tx: StoreTransaction, userId: string): Promise<string[]>;
  deleteExpiredSessions(tx: StoreTransaction, now: number): Promise<number>;
  /** Which of these sessions ended (gone or expired at `now`). */
  findEndedSessionIds(tx: StoreTransaction, ids: readonly string[], now: number): Promise<string[]>;

  setPasswordHash(tx: StoreTransaction, userId: string, passwordHash: string): Promise<void>;
  /** Sets a password on an account that has none, by compare-and-set: false when one was set meanwhile. */
  setFirstPasswordHash(tx: StoreTransaction, userId: string, passwordHash: string): Promise<boolean>;
  setAdminFlag(tx: StoreTransaction, userId: string, isAdmin: boolean): Promise<boolean>;

  addSignInLink(tx: StoreTransaction, link: NewSignInLink): Promise<void>;
  /** Uses a link once, before it expires: its user's id for the one call that used it, undefined otherwise. */
  consumeSignInLink(tx: StoreTransaction, tokenHash: string, now: number): Promise<string | undefined>;
}
