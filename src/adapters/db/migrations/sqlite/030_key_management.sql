-- Management keys (issue 29, item 1): only a key with manage_keys = 1 may manage its user's keys
-- through /api/v1/keys, and only within its own limits. Every existing key starts without it: a key
-- that could lift its own limits is exactly what this closes.
ALTER TABLE api_keys ADD COLUMN manage_keys INTEGER NOT NULL DEFAULT 0;
