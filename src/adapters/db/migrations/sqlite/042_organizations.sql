-- Organizations (issue 33, items 1-3): an organization is an account like a person's (its row in
-- users: a balance, keys, agent resources, the ledger), with no email or password, so nobody signs in
-- as it. People belong to it through organization_members with a role; an organization's key names
-- the member it belongs to (api_keys.member_id), and every ledger entry moved through such a key names
-- that member (ledger_entries.member_id; null for a person's own account).
ALTER TABLE users ADD COLUMN kind TEXT NOT NULL DEFAULT 'person' CHECK (kind IN ('person', 'organization'));
ALTER TABLE users ADD COLUMN name TEXT;
ALTER TABLE api_keys ADD COLUMN member_id TEXT REFERENCES users (id);
ALTER TABLE ledger_entries ADD COLUMN member_id TEXT;

CREATE TABLE organization_members (
  organization_id TEXT NOT NULL REFERENCES users (id),
  user_id TEXT NOT NULL REFERENCES users (id),
  role TEXT NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
  created_at INTEGER NOT NULL,
  PRIMARY KEY (organization_id, user_id)
) STRICT;
CREATE INDEX organization_members_user_idx ON organization_members (user_id);

-- An invitation is a single-use link (its SHA-256 kept, never the token) for one address and role.
CREATE TABLE organization_invitations (
  id TEXT PRIMARY KEY,
  organization_id TEXT NOT NULL REFERENCES users (id),
  email TEXT NOT NULL,
  role TEXT NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
  token_hash TEXT NOT NULL UNIQUE,
  invited_by TEXT NOT NULL REFERENCES users (id),
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  accepted_at INTEGER,
  accepted_by TEXT,
  revoked_at INTEGER
) STRICT;
CREATE INDEX organization_invitations_org_idx ON organization_invitations (organization_id, created_at);
CREATE INDEX ledger_entries_member_idx ON ledger_entries (member_id, created_at) WHERE member_id IS NOT NULL;
