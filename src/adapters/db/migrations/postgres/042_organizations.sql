-- Organizations (issue 33, items 1-3): an organization is an account like a person's (its row in
-- users: a balance, keys, agent resources, the ledger), with no email or password, so nobody signs in
-- as it. People belong to it through organization_members with a role; an organization's key names
-- the member it belongs to (api_keys.member_id), and every ledger entry moved through such a key names
-- that member (ledger_entries.member_id; null for a person's own account).
ALTER TABLE users ADD COLUMN kind text NOT NULL DEFAULT 'person' CHECK (kind IN ('person', 'organization'));
ALTER TABLE users ADD COLUMN name text;
ALTER TABLE api_keys ADD COLUMN member_id text REFERENCES users (id);
ALTER TABLE ledger_entries ADD COLUMN member_id text;

CREATE TABLE organization_members (
  organization_id text NOT NULL REFERENCES users (id),
  user_id text NOT NULL REFERENCES users (id),
  role text NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
  created_at bigint NOT NULL,
  PRIMARY KEY (organization_id, user_id)
);
CREATE INDEX organization_members_user_idx ON organization_members (user_id);

-- An invitation is a single-use link (its SHA-256 kept, never the token) for one address and role.
CREATE TABLE organization_invitations (
  id text PRIMARY KEY,
  organization_id text NOT NULL REFERENCES users (id),
  email text NOT NULL,
  role text NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
  token_hash text NOT NULL UNIQUE,
  invited_by text NOT NULL REFERENCES users (id),
  created_at bigint NOT NULL,
  expires_at bigint NOT NULL,
  accepted_at bigint,
  accepted_by text,
  revoked_at bigint
);
CREATE INDEX organization_invitations_org_idx ON organization_invitations (organization_id, created_at);
CREATE INDEX ledger_entries_member_idx ON ledger_entries (member_id, created_at) WHERE member_id IS NOT NULL;

-- Migration 038's function, with the chat charge naming the member of the request's key.
CREATE OR REPLACE FUNCTION chat_ledger_apply(operations jsonb) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  op jsonb;
  replies jsonb := '[]'::jsonb;
  amount bigint;
  cost bigint;
  collected bigint;
  balance bigint;
  held bigint;
  room bigint;
BEGIN
  FOR op IN SELECT value FROM jsonb_array_elements(operations) LOOP
    amount := (op->>'hold')::bigint;
    IF op->>'kind' = 'hold' THEN
      UPDATE users SET held_micro = held_micro + amount WHERE id = op->>'user' AND balance_micro - held_micro >= amount;
      IF FOUND THEN
        IF op->>'key' IS NOT NULL AND NOT api_key_spend_move(op->>'key', op->>'month', 0, amount, true) THEN
          UPDATE users SET held_micro = held_micro - amount WHERE id = op->>'user';
          replies := replies || '["key_spend_cap_reached"]'::jsonb;
          CONTINUE;
        END IF;
        INSERT INTO chat_holds (id, user_id, api_key_id, model, protocol, stream, hold_micro, created_at, last_seen_at)
        VALUES (op->>'id', op->>'user', op->>'key', op->>'model', op->>'protocol', (op->>'stream')::integer, amount, (op->>'now')::bigint, (op->>'now')::bigint);
        replies := replies || '["held"]'::jsonb;
      ELSIF EXISTS (SELECT 1 FROM users WHERE id = op->>'user') THEN
        replies := replies || '["insufficient_balance"]'::jsonb;
      ELSE
        replies := replies || '["user_not_found"]'::jsonb;
      END IF;
      CONTINUE;
    END IF;
    -- A settlement: deleting the hold's row is the compare-and-set.
    DELETE FROM chat_holds WHERE id = op->>'id';
    IF NOT FOUND THEN
      replies := replies || '["taken"]'::jsonb;
      CONTINUE;
    END IF;
    cost := (op->>'cost')::bigint;
    SELECT balance_micro, held_micro INTO balance, held FROM users WHERE id = op->>'user' FOR UPDATE;
    -- What the balance covers once this hold is released: all of the cost, unless usage went above
    -- the hold and the balance was spent meanwhile.
    collected := least(cost, greatest(0, balance - (held - amount)));
    IF op->>'key' IS NOT NULL THEN
      room := api_key_cap_room(op->>'key', op->>'month', amount);
      IF room IS NOT NULL THEN collected := least(collected, greatest(0, room)); END IF;
      PERFORM api_key_spend_move(op->>'key', op->>'month', collected, -amount, false);
    END IF;
    UPDATE users SET held_micro = held_micro - amount, balance_micro = balance_micro - collected WHERE id = op->>'user'
      RETURNING balance_micro INTO balance;
    INSERT INTO chat_requests (id, user_id, api_key_id, model, protocol, stream, status, provider, upstream_model, attempts, input_tokens,
      output_tokens, cached_tokens, cache_creation_tokens, usage_estimated, hold_micro, cost_micro, stop_reason, latency_ms, first_byte_ms,
      error_code, error_message, created_at, finished_at, last_seen_at, uncollected_micro, upstream_cost_micro)
    VALUES (op->>'id', op->>'user', op->>'key', op->>'model', op->>'protocol', (op->>'stream')::integer, op->>'status', op->>'provider',
      op->>'upstreamModel', (op->>'attempts')::integer, (op->>'input')::bigint, (op->>'output')::bigint, (op->>'cached')::bigint,
      (op->>'cacheCreation')::bigint, (op->>'estimated')::integer, amount, collected, op->>'stopReason', (op->>'latency')::integer,
      (op->>'firstByte')::integer, op->>'errorCode', op->>'errorMessage', (op->>'now')::bigint, (op->>'finished')::bigint,
      (op->>'finished')::bigint, cost - collected, (op->>'upstreamCost')::bigint);
    IF collected > 0 THEN
      INSERT INTO ledger_entries (id, user_id, kind, reference, amount_micro, balance_after_micro, note, created_at, member_id)
      VALUES (op->>'entry', op->>'user', 'chat_charge', op->>'id', -collected, balance, op->>'note', (op->>'finished')::bigint,
        (SELECT member_id FROM api_keys WHERE id = op->>'key'));
    END IF;
    replies := replies || jsonb_build_array(collected);
  END LOOP;
  RETURN replies;
END
$$;
