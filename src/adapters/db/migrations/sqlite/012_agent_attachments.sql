-- The agent, part 2: attachments (SPEC rule 11). A row is created with the announced name, type and
-- size; the bytes arrive by an upload URL (a presigned S3 PUT, or the gateway's own signed URL); the
-- complete call checks them and makes the original immutable. Incomplete uploads expire 24 hours after
-- creation, completed ones (temporary conversation references) 3 days after completion.
CREATE TABLE agent_attachments (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL,
  storefront TEXT NOT NULL,
  conversation_id TEXT NOT NULL,
  name TEXT NOT NULL,
  mime TEXT NOT NULL,
  size_bytes INTEGER NOT NULL,
  -- pending (waiting for bytes or complete), completed (immutable original), expired (bytes removed)
  status TEXT NOT NULL,
  blob_key TEXT NOT NULL,
  -- SHA-256 of the upload URL's token (the URL itself carries no credentials of the user).
  upload_token_hash TEXT NOT NULL,
  -- What the complete call measured (JSON: kind, format, width, height, durationS, pages, chars).
  facts_json TEXT,
  sha256 TEXT,
  created_at INTEGER NOT NULL,
  upload_expires_at INTEGER NOT NULL,
  completed_at INTEGER,
  expires_at INTEGER,
  CHECK (status IN ('pending', 'completed', 'expired'))
) STRICT;
CREATE INDEX agent_attachments_conversation_idx ON agent_attachments (conversation_id);
CREATE INDEX agent_attachments_pending_idx ON agent_attachments (upload_expires_at) WHERE status = 'pending';
CREATE INDEX agent_attachments_completed_idx ON agent_attachments (expires_at) WHERE status = 'completed';
