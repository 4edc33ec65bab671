-- Issue 18, item 8: a paid checkout whose amount or currency differs from what we opened is held for
-- the operator (status `review`) instead of refused: Stripe retries a refused delivery for three days,
-- and the money it took is real. What the provider said was paid is kept beside what we expected, in
-- the currency's minor unit as Stripe gives it.
ALTER TABLE payment_checkouts
  ADD COLUMN paid_amount_minor bigint,
  ADD COLUMN paid_currency text;
CREATE INDEX payment_checkouts_review_idx ON payment_checkouts (status, completed_at) WHERE status = 'review';
