-- The chat ledger's batch on PostgreSQL (services/chat/chat-ledger.postgres.ts): the holds and
-- settlements that arrived together, applied in order by one call, in one transaction and one round
-- trip. The rules are those of the SQLite statements (services/chat/chat-ledger.sqlite.ts) and of
-- docs/decisions.md "Holds on the account"; the chat ledger's contract tests run on both stores.
--
-- operations: a JSON array of
--   {"kind":"hold", "id","user","key","model","protocol","stream","hold","now"}
--   {"kind":"settle", the same, plus "cost","note","entry" and the outcome: "status","provider",
--    "upstreamModel","attempts","input","output","cached","cacheCreation","estimated","stopReason",
--    "latency","firstByte","errorCode","errorMessage","finished"}
-- returns a JSON array with one reply each: "held", "insufficient_balance", "user_not_found" (a hold,
-- nothing written), "taken" (a settlement whose hold was gone: nothing written), or the amount charged
-- (a settlement: the cost, or less when the balance could not cover it once the hold was released).
CREATE FUNCTION chat_ledger_apply(operations jsonb) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  op jsonb;
  replies jsonb := '[]'::jsonb;
  amount bigint;
  cost bigint;
  collected bigint;
  balance bigint;
  held bigint;
BEGIN
  FOR op IN SELECT value FROM jsonb_array_elements(operations) LOOP
    amount := (op->>'hold')::bigint;
    IF op->>'kind' = 'hold' THEN
      UPDATE users SET held_micro = held_micro + amount WHERE id = op->>'user' AND balance_micro - held_micro >= amount;
      IF FOUND THEN
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
    UPDATE users SET held_micro = held_micro - amount, balance_micro = balance_micro - collected WHERE id = op->>'user'
      RETURNING balance_micro INTO balance;
    INSERT INTO chat_requests (id, user_id, api_key_id, model, protocol, stream, status, provider, upstream_model, attempts, input_tokens,
      output_tokens, cached_tokens, cache_creation_tokens, usage_estimated, hold_micro, cost_micro, stop_reason, latency_ms, first_byte_ms,
      error_code, error_message, created_at, finished_at, last_seen_at, uncollected_micro)
    VALUES (op->>'id', op->>'user', op->>'key', op->>'model', op->>'protocol', (op->>'stream')::integer, op->>'status', op->>'provider',
      op->>'upstreamModel', (op->>'attempts')::integer, (op->>'input')::bigint, (op->>'output')::bigint, (op->>'cached')::bigint,
      (op->>'cacheCreation')::bigint, (op->>'estimated')::integer, amount, collected, op->>'stopReason', (op->>'latency')::integer,
      (op->>'firstByte')::integer, op->>'errorCode', op->>'errorMessage', (op->>'now')::bigint, (op->>'finished')::bigint,
      (op->>'finished')::bigint, cost - collected);
    IF collected > 0 THEN
      INSERT INTO ledger_entries (id, user_id, kind, reference, amount_micro, balance_after_micro, note, created_at)
      VALUES (op->>'entry', op->>'user', 'chat_charge', op->>'id', -collected, balance, op->>'note', (op->>'finished')::bigint);
    END IF;
    replies := replies || jsonb_build_array(collected);
  END LOOP;
  RETURN replies;
END
$$;
