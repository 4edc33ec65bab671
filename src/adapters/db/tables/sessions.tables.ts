/** The sessions tables as Kysely sees them: the rows of ports/store-rows/sessions.rows.ts, with the columns the database fills. */
import type { OidcIdentitiesRow, OidcSignInStatesRow, SessionsRow, SignInLinksRow } from '../../../ports/store-rows/sessions.rows.ts';

export type SessionsTable = SessionsRow;
export type SignInLinksTable = SignInLinksRow;
export type OidcIdentitiesTable = OidcIdentitiesRow;
export type OidcSignInStatesTable = OidcSignInStatesRow;

export interface SessionTables {
  sessions: SessionsTable;
  sign_in_links: SignInLinksTable;
  oidc_identities: OidcIdentitiesTable;
  oidc_sign_in_states: OidcSignInStatesTable;
}
