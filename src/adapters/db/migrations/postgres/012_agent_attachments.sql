-- The agent, part 2: attachments (SPEC rule 11). A row is created with the announced name, type and
-- size; the bytes arrive by an upload URL (a presigned S3 PUT, or the gateway's own signed URL); the
-- complete call checks them and makes the original immutable. Incomplete uploads expire 24 hours after
-- creation, completed ones (temporary conversation references) 3 days after completion.
CREATE TABLE agent_attachments (
  id text PRIMARY KEY,
  user_id text NOT NULL,
  storefront text NOT NULL,
  conversation_id text NOT NULL,
  name text NOT NULL,
  mime text NOT NULL,
  size_bytes bigint NOT NULL,
  -- pending (waiting for bytes or complete), completed (immutable original), expired (bytes removed)
  status text NOT NULL,
  blob_key text NOT NULL,
  -- SHA-256 of the upload URL's token (the URL itself carries no credentials of the user).
  upload_token_hash text NOT NULL,
  -- What the complete call measured (JSON: kind, format, width, height, durationS, pages, chars).
  facts_json text,
  sha256 text,
  created_at bigint NOT NULL,
  upload_expires_at bigint NOT NULL,
  completed_at bigint,
  expires_at bigint,
  CHECK (status IN ('pending', 'completed', 'expired'))
);
CREATE INDEX agent_attachments_conversation_idx ON agent_attachments (conversation_id);
CREATE INDEX agent_attachments_pending_idx ON agent_attachments (upload_expires_at) WHERE status = 'pending';
CREATE INDEX agent_attachments_completed_idx ON agent_attachments (expires_at) WHERE status = 'completed';
