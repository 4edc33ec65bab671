-- Agent webhook deliveries on the Settings page (issue 21, item 17): a destination's recent
-- deliveries newest first, and at most one pending delivery of an event per destination, so that a
-- redelivery asked twice (or raced across processes) queues the event once.
CREATE INDEX webhook_deliveries_destination_idx ON webhook_deliveries (destination_id, created_at, id) WHERE destination_id IS NOT NULL;
CREATE UNIQUE INDEX webhook_deliveries_one_pending_idx ON webhook_deliveries (destination_id, message_id) WHERE status = 'pending' AND destination_id IS NOT NULL;
