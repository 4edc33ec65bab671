-- One-time sign-in links (issue 13, item 12): the demo user printed at first start can open the
-- dashboard. Only the SHA-256 of the token is kept; a link works once, until it expires.
CREATE TABLE sign_in_links (
  token_hash text PRIMARY KEY,
  user_id text NOT NULL,
  created_at bigint NOT NULL,
  expires_at bigint NOT NULL,
  used_at bigint
);
