-- Single sign-on with OpenID Connect (issue 33, item 5). An identity is a provider's (issuer, subject)
-- linked to one user; a sign-in state is one started sign-in, used once before it expires. The
-- state and the browser binding are kept as SHA-256 only; the PKCE verifier and the nonce are
-- short-lived secrets useless without the provider's code.
CREATE TABLE oidc_identities (
  issuer TEXT NOT NULL,
  subject TEXT NOT NULL,
  user_id TEXT NOT NULL,
  email TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  last_sign_in_at INTEGER NOT NULL,
  PRIMARY KEY (issuer, subject)
) STRICT;
CREATE INDEX oidc_identities_user ON oidc_identities (user_id);

CREATE TABLE oidc_sign_in_states (
  state_hash TEXT PRIMARY KEY,
  provider TEXT NOT NULL,
  browser_hash TEXT NOT NULL,
  code_verifier TEXT NOT NULL,
  nonce TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  used_at INTEGER
) STRICT;
CREATE INDEX oidc_sign_in_states_expiry ON oidc_sign_in_states (expires_at);
