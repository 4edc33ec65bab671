-- The per-key spend rule written once (issue 31): these functions are the text of
-- src/adapters/db/ledger/key-spend-rule.ts rendered for PostgreSQL (scripts/print-key-spend-functions.ts),
-- the same statements the book runs over Kysely and the SQLite writer thread prepares. Same
-- signatures and results as migration 027's; the cap period's row is now chosen inside the guarded
-- update rather than read first.
CREATE OR REPLACE FUNCTION api_key_spend_move(key text, month text, spent_delta bigint, held_delta bigint, guarded boolean) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
  insert into api_key_spend (key_id, period) values (key, 'total'), (key, month) on conflict do nothing;
  update api_key_spend set spent_micro = spent_micro + spent_delta, held_micro = held_micro + held_delta where key_id = key and period = coalesce((select case when spend_cap_period = 'month' then month else 'total' end from api_keys where id = key), 'total') and (not guarded or spent_micro + held_micro + spent_delta + held_delta <= coalesce((select spend_cap_micro from api_keys where id = key), 9000000000000000000));
  IF NOT FOUND THEN RETURN false; END IF;
  update api_key_spend set spent_micro = spent_micro + spent_delta, held_micro = held_micro + held_delta where key_id = key and period in ('total', month) and period <> coalesce((select case when spend_cap_period = 'month' then month else 'total' end from api_keys where id = key), 'total');
  RETURN true;
END
$$;

CREATE OR REPLACE FUNCTION api_key_cap_room(key text, month text, amount bigint) RETURNS bigint LANGUAGE sql AS $$
  select k.spend_cap_micro - (s.spent_micro + s.held_micro - amount) from api_keys k join api_key_spend s on s.key_id = k.id and s.period = case when k.spend_cap_period = 'month' then month else 'total' end where k.id = key and k.spend_cap_micro is not null
$$;
