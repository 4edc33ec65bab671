-- Chat holds on the account instead of in the ledger (docs/decisions.md, "Holds on the account").
-- A running chat request reserves its most expensive outcome in `users.held_micro`, and a narrow
-- `chat_holds` row (deleted when it settles) records it for the crash job. The ledger then records
-- only money that moved: one `chat_charge` of the exact cost per billed request, instead of a
-- `chat_hold` and a `chat_release`. What a user can spend is balance_micro - held_micro.
ALTER TABLE users ADD COLUMN held_micro bigint NOT NULL DEFAULT 0;
ALTER TABLE users ADD CONSTRAINT users_held_within_balance CHECK (held_micro >= 0 AND held_micro <= balance_micro);

-- One row per running request, from its hold to its settlement. No foreign key: the hold's guarded
-- update of the user's row, in the same statement, already proves the user exists. No index beside
-- the key: the table holds only the requests in flight, which the crash job reads in full each minute.
CREATE TABLE chat_holds (
  id text PRIMARY KEY,
  user_id text NOT NULL,
  api_key_id text,
  model text NOT NULL,
  protocol text NOT NULL,
  stream integer NOT NULL,
  hold_micro bigint NOT NULL,
  created_at bigint NOT NULL,
  last_seen_at bigint NOT NULL
);

-- chat_requests rows are now written once, when the request settles. The (user_id, day, …) index of
-- 008 serves every query by user; this one only cost a write per request.
DROP INDEX chat_requests_user_created_idx;
