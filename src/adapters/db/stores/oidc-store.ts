import type { OidcStore } from '../../../ports/oidc-store.port.ts';
import {
  consumeOidcSignInState,
  deleteExpiredOidcSignInStates,
  findOidcIdentity,
  insertOidcIdentity,
  insertOidcSignInState,
  touchOidcIdentity,
} from '../repositories/oidc.repository.ts';
import { executorOf } from '../schema.ts';

/** Started sign-ins and linked identities over Kysely, for SQLite and PostgreSQL alike (stateless). */
export const kyselyOidcStore: OidcStore = {
  addSignInState: (tx, row) => insertOidcSignInState(executorOf(tx), row),
  consumeSignInState: async (tx, key, now) => {
    const row = await consumeOidcSignInState(executorOf(tx), key, now);
    return row ? { codeVerifier: row.code_verifier, nonce: row.nonce } : undefined;
  },
  deleteExpiredSignInStates: (tx, now) => deleteExpiredOidcSignInStates(executorOf(tx), now),
  findIdentity: (tx, issuer, subject) => findOidcIdentity(executorOf(tx), issuer, subject),
  addIdentity: (tx, row) => insertOidcIdentity(executorOf(tx), row),
  touchIdentity: (tx, issuer, subject, email, now) => touchOidcIdentity(executorOf(tx), issuer, subject, email, now),
};
