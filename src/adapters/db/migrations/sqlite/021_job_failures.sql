-- The poison-job rule (issue 17): a job's consecutive unexpected failures (`attempts` counts claims,
-- normal re-runs included), how many of the last ones failed the same way, and how the last one
-- looked. A claim that ends normally sets the counts back to 0.
ALTER TABLE jobs ADD COLUMN failures INTEGER NOT NULL DEFAULT 0;
ALTER TABLE jobs ADD COLUMN repeats INTEGER NOT NULL DEFAULT 0;
ALTER TABLE jobs ADD COLUMN last_failure TEXT;
