-- The spend cap covers storage (issue 29, item 3): the API key a storage charge is paid through
-- (null: a dashboard session), and the key the subscription's renewals are charged through (the
-- caller of its last subscribe or renewal choice).
ALTER TABLE storage_subscriptions ADD COLUMN api_key_id text;
ALTER TABLE storage_charges ADD COLUMN api_key_id text;
