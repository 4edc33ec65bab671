/**
 * Single sign-on as the sign-in service sees it: started sign-ins (each used once, before it expires,
 * by the browser that started it) and the provider identities linked to users. Every method takes the
 * transaction first, as in auth-store.port.ts; test/contract/oidc-store.contract.test.ts runs it on both engines.
 */
import type { OidcIdentitiesRow, OidcSignInStatesRow } from './store-rows/sessions.rows.ts';
import type { StoreTransaction } from './store-transaction.port.ts';

export type OidcIdentityRow = OidcIdentitiesRow;
export type NewOidcSignInState = Omit<OidcSignInStatesRow, 'used_at'>;

/** Which started sign-in a callback names: its state, the browser's binding and the provider. */
export interface OidcSignInStateKey {
  stateHash: string;
  browserHash: string;
  provider: string;
}

/** What a used state gives back to the one call that used it. */
export interface UsedOidcSignInState {
  codeVerifier: string;
  nonce: string;
}

export interface OidcStore {
  addSignInState(tx: StoreTransaction, row: NewOidcSignInState): Promise<void>;
  /**
   * Uses a state once, before it expires, and only from the browser and for the provider it was
   * started for (another browser cannot spend it): its secrets for the one call that used it.
   */
  consumeSignInState(tx: StoreTransaction, key: OidcSignInStateKey, now: number): Promise<UsedOidcSignInState | undefined>;
  deleteExpiredSignInStates(tx: StoreTransaction, now: number): Promise<number>;
  findIdentity(tx: StoreTransaction, issuer: string, subject: string): Promise<OidcIdentityRow | undefined>;
  /** Links an identity to a user; false when it was linked meanwhile (the first link stands). */
  addIdentity(tx: StoreTransaction, row: OidcIdentityRow): Promise<boolean>;
  /** Records a sign-in through an identity and the email it came with. */
  touchIdentity(tx: StoreTransaction, issuer: string, subject: string, email: string, now: number): Promise<void>;
}
