-- A member's monthly spend cap inside an organization (issue 33, items 1 and 3): every movement of an
-- organization key's spend also moves its member's row of the month (the key's calendar month, as the
-- key's own 'month' row), and a guarded movement above the member's cap is refused in the same
-- transaction (src/adapters/db/ledger/member-spend-rule.ts).
ALTER TABLE organization_members ADD COLUMN monthly_cap_micro bigint CHECK (monthly_cap_micro IS NULL OR monthly_cap_micro >= 0);

CREATE TABLE organization_member_spend (
  organization_id text NOT NULL,
  user_id text NOT NULL,
  spend_month text NOT NULL,
  spent_micro bigint NOT NULL DEFAULT 0,
  held_micro bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (organization_id, user_id, spend_month)
);

-- The rule as functions (postgresMemberSpendFunctions() in member-spend-rule.ts, exactly).
CREATE OR REPLACE FUNCTION member_spend_move(key text, month text, spent_delta bigint, held_delta bigint, guarded boolean) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
  insert into organization_member_spend (organization_id, user_id, spend_month, spent_micro, held_micro) select user_id, member_id, cast(month as text), cast(spent_delta as bigint), cast(held_delta as bigint) from api_keys where id = key and member_id is not null on conflict (organization_id, user_id, spend_month) do update set spent_micro = organization_member_spend.spent_micro + excluded.spent_micro, held_micro = organization_member_spend.held_micro + excluded.held_micro;
  IF guarded AND EXISTS (select 1 as hit from api_keys k join organization_members m on m.organization_id = k.user_id and m.user_id = k.member_id join organization_member_spend s on s.organization_id = k.user_id and s.user_id = k.member_id and s.spend_month = month where k.id = key and m.monthly_cap_micro is not null and s.spent_micro + s.held_micro > m.monthly_cap_micro) THEN
    insert into organization_member_spend (organization_id, user_id, spend_month, spent_micro, held_micro) select user_id, member_id, cast(month as text), -cast(spent_delta as bigint), -cast(held_delta as bigint) from api_keys where id = key and member_id is not null on conflict (organization_id, user_id, spend_month) do update set spent_micro = organization_member_spend.spent_micro + excluded.spent_micro, held_micro = organization_member_spend.held_micro + excluded.held_micro;
    RETURN false;
  END IF;
  RETURN true;
END
$$;

CREATE OR REPLACE FUNCTION member_cap_room(key text, month text, amount bigint) RETURNS bigint LANGUAGE sql AS $$
  select m.monthly_cap_micro - (s.spent_micro + s.held_micro - amount) from api_keys k join organization_members m on m.organization_id = k.user_id and m.user_id = k.member_id join organization_member_spend s on s.organization_id = k.user_id and s.user_id = k.member_id and s.spend_month = month where k.id = key and m.monthly_cap_micro is not null
$$;

-- Migration 042's function, with a hold refused above the member's cap and a settlement within it.
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
        IF op->>'key' IS NOT NULL AND NOT member_spend_move(op->>'key', op->>'month', 0, amount, true) THEN
          PERFORM api_key_spend_move(op->>'key', op->>'month', 0, -amount, false);
          UPDATE users SET held_micro = held_micro - amount WHERE id = op->>'user';
          replies := replies || '["member_spend_cap_reached"]'::jsonb;
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
      room := member_cap_room(op->>'key', op->>'month', amount);
      IF room IS NOT NULL THEN collected := least(collected, greatest(0, room)); END IF;
      PERFORM api_key_spend_move(op->>'key', op->>'month', collected, -amount, false);
      PERFORM member_spend_move(op->>'key', op->>'month', collected, -amount, false);
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
