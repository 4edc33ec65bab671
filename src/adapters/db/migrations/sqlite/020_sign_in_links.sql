-- One-time sign-in links (issue 13, item 12): the demo user printed at first start can open the
-- dashboard. Only the SHA-256 of the token is kept; a link works once, until it expires.
CREATE TABLE sign_in_links (
  token_hash TEXT PRIMARY KEY,
  user_id TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  used_at INTEGER
) STRICT;
