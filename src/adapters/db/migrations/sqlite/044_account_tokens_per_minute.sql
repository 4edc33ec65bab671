-- Tokens per minute per organization (issue 33, item 6): input plus output tokens of every text
-- request made through any of its keys, counted across processes as a key's are (a running request
-- counts its worst case). Null: no limit. Set by an owner or admin.
ALTER TABLE users ADD COLUMN tpm_limit INTEGER CHECK (tpm_limit IS NULL OR tpm_limit > 0);
