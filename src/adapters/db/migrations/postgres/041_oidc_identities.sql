-- Single sign-on with OpenID Connect (issue 33, item 5). An identity is a provider's (issuer, subject)
-- linked to one user; a sign-in state is one started sign-in, used once before it expires. The
-- state and the browser binding are kept as SHA-256 only; the PKCE verifier and the nonce are
-- short-lived secrets useless without the provider's code.
CREATE TABLE oidc_identities (
  issuer text NOT NULL,
  subject text NOT NULL,
  user_id text NOT NULL,
  email text NOT NULL,
  created_at bigint NOT NULL,
  last_sign_in_at bigint NOT NULL,
  PRIMARY KEY (issuer, subject)
);
CREATE INDEX oidc_identities_user ON oidc_identities (user_id);

CREATE TABLE oidc_sign_in_states (
  state_hash text PRIMARY KEY,
  provider text NOT NULL,
  browser_hash text NOT NULL,
  code_verifier text NOT NULL,
  nonce text NOT NULL,
  created_at bigint NOT NULL,
  expires_at bigint NOT NULL,
  used_at bigint
);
CREATE INDEX oidc_sign_in_states_expiry ON oidc_sign_in_states (expires_at);
