-- Per-key limits (issue 21, item 15): a spend cap (total or per calendar month), an expiry, an
-- allow-list of models, requests per minute and concurrent generations, all optional (null: none).
ALTER TABLE api_keys ADD COLUMN spend_cap_micro bigint;
ALTER TABLE api_keys ADD COLUMN spend_cap_period text;
ALTER TABLE api_keys ADD COLUMN expires_at bigint;
ALTER TABLE api_keys ADD COLUMN allowed_models text;
ALTER TABLE api_keys ADD COLUMN rpm_limit integer;
ALTER TABLE api_keys ADD COLUMN concurrency_limit integer;

-- What a key spent and holds, per period: 'total' and each calendar month 'YYYY-MM' (UTC). Every
-- charge on a key moves both rows in the transaction of its debit or hold; the row of the key's cap
-- period is guarded (spent + held + amount <= cap). The user's row is always locked first.
CREATE TABLE api_key_spend (
  key_id text NOT NULL,
  period text NOT NULL,
  spent_micro bigint NOT NULL DEFAULT 0,
  held_micro bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (key_id, period)
);

-- Moves a key's spend rows ('total' and `month`) by the deltas; with `guarded`, only when the row of
-- the key's cap period stays within the cap (spent + held <= cap). False when refused: nothing moved.
CREATE FUNCTION api_key_spend_move(key text, month text, spent_delta bigint, held_delta bigint, guarded boolean) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
  cap_row text;
BEGIN
  INSERT INTO api_key_spend (key_id, period) VALUES (key, 'total'), (key, month) ON CONFLICT DO NOTHING;
  SELECT CASE WHEN spend_cap_period = 'month' THEN month ELSE 'total' END INTO cap_row FROM api_keys WHERE id = key;
  cap_row := coalesce(cap_row, 'total');
  UPDATE api_key_spend SET spent_micro = spent_micro + spent_delta, held_micro = held_micro + held_delta
  WHERE key_id = key AND period = cap_row
    AND (NOT guarded OR spent_micro + held_micro + spent_delta + held_delta <= coalesce((SELECT spend_cap_micro FROM api_keys WHERE id = key), 9000000000000000000));
  IF NOT FOUND THEN RETURN false; END IF;
  UPDATE api_key_spend SET spent_micro = spent_micro + spent_delta, held_micro = held_micro + held_delta
  WHERE key_id = key AND period = CASE WHEN cap_row = 'total' THEN month ELSE 'total' END;
  RETURN true;
END
$$;

-- What a key's cap leaves for a settlement that releases `amount` it held (null: no cap).
CREATE FUNCTION api_key_cap_room(key text, month text, amount bigint) RETURNS bigint LANGUAGE sql AS $$
  SELECT k.spend_cap_micro - (s.spent_micro + s.held_micro - amount)
  FROM api_keys k JOIN api_key_spend s ON s.key_id = k.id AND s.period = CASE WHEN k.spend_cap_period = 'month' THEN month ELSE 'total' END
  WHERE k.id = key AND k.spend_cap_micro IS NOT NULL
$$;

-- migration 010's batch, with the key's spend: a hold reserves on the key's rows too (refused with
-- "key_spend_cap_reached", nothing written), a settlement releases it and adds what it charged, never
-- more than the cap leaves (the rest is recorded as uncollected, as above the balance). Operations
-- carry "month", the hold's calendar month.
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
