-- Webhook secret rotation: the secret replaced by the last rotation keeps signing (beside the new one)
-- for a grace period after webhook_secret_rotated_at, so receivers can switch without losing deliveries.
ALTER TABLE users ADD COLUMN webhook_secret_previous TEXT;
ALTER TABLE users ADD COLUMN webhook_secret_rotated_at INTEGER;
