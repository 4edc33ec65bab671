-- Upstream cost and margin (issue 32, item 6): what the served route entry's upstream charged us for a
-- chat request or a media attempt, at the entry's cost when it settled (null: no cost set for the entry,
-- or the request was settled by the chat_settle job, which knows no usage). Read by the operator's
-- per-day report of revenue, upstream cost, margin, failovers and errors, over all users by day (chat
-- requests by the index below; tasks by their time-ordered ids, with no index to slow every create).
ALTER TABLE chat_requests ADD COLUMN upstream_cost_micro bigint;
ALTER TABLE task_attempts ADD COLUMN upstream_cost_micro bigint;
CREATE INDEX chat_requests_created_idx ON chat_requests (created_at);

-- Migration 027's function, with the settlement's upstream cost written on the request's row
-- (`upstreamCost`, absent or null when unknown).
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
      INSERT INTO ledger_entries (id, user_id, kind, reference, amount_micro, balance_after_micro, note, created_at)
      VALUES (op->>'entry', op->>'user', 'chat_charge', op->>'id', -collected, balance, op->>'note', (op->>'finished')::bigint);
    END IF;
    replies := replies || jsonb_build_array(collected);
  END LOOP;
  RETURN replies;
END
$$;
