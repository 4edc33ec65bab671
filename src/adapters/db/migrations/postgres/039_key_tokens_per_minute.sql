-- Tokens per minute per API key (issue 33, item 6): input plus output tokens of its text requests,
-- counted across processes as requests per minute are (a running request counts its worst case).
ALTER TABLE api_keys ADD COLUMN tpm_limit bigint;
