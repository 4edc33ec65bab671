-- Usage by API key (issue 13, item 12): the key a generation was created with (null from the
-- dashboard's session), as chat requests and agent runs already record it.
ALTER TABLE tasks ADD COLUMN api_key_id TEXT;
