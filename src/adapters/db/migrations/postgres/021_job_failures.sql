-- The poison-job rule (issue 17): a job's consecutive unexpected failures (`attempts` counts claims,
-- normal re-runs included), how many of the last ones failed the same way, and how the last one
-- looked. A claim that ends normally sets the counts back to 0.
ALTER TABLE jobs
  ADD COLUMN failures integer NOT NULL DEFAULT 0,
  ADD COLUMN repeats integer NOT NULL DEFAULT 0,
  ADD COLUMN last_failure text;
