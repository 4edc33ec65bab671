-- Money in (docs/decisions.md, "Top-ups and redeem codes"). A checkout is a top-up a user started at
-- the payment provider: its status moves created -> paid | expired | failed, each change a
-- compare-and-set on the status; the credit itself is the ledger entry (`topup_credit`, reference =
-- the provider's session id), so a webhook delivered twice credits once.
CREATE TABLE payment_checkouts (
  id text PRIMARY KEY,
  user_id text NOT NULL REFERENCES users (id),
  provider text NOT NULL,
  -- The caller's Idempotency-Key (or our id): a retried create returns the same checkout.
  idempotency_key text NOT NULL,
  session_id text UNIQUE,
  url text,
  amount_micro bigint NOT NULL CHECK (amount_micro > 0),
  status text NOT NULL,
  created_at bigint NOT NULL,
  completed_at bigint,
  UNIQUE (user_id, idempotency_key)
);
CREATE INDEX payment_checkouts_user_idx ON payment_checkouts (user_id, created_at);

-- Codes an operator hands out. Only the SHA-256 of the normalised code is kept (a leaked database
-- does not hand out money); `redemptions` only grows, through a guarded update below `max_redemptions`.
-- Each user redeems a code once: the ledger's (kind, reference) with reference = code id + user id.
CREATE TABLE redeem_codes (
  id text PRIMARY KEY,
  code_hash text NOT NULL UNIQUE,
  code_hint text NOT NULL,
  amount_micro bigint NOT NULL CHECK (amount_micro > 0),
  max_redemptions integer NOT NULL CHECK (max_redemptions > 0),
  redemptions integer NOT NULL DEFAULT 0 CHECK (redemptions >= 0 AND redemptions <= max_redemptions),
  expires_at bigint,
  disabled_at bigint,
  note text,
  created_at bigint NOT NULL
);
CREATE INDEX redeem_codes_created_idx ON redeem_codes (created_at);

-- The user's ledger page links a chat charge or a generation debit to the agent conversation that
-- caused it: looked up by the operation's reference.
CREATE INDEX agent_operations_ref_idx ON agent_operations (ref_id);
