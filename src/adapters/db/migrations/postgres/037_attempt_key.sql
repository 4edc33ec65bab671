-- Key pools (issue 32): the provider key a media attempt used, so that its polls, reconcile and
-- cancel go through the same upstream account. Null for attempts made before (the provider's first key).
ALTER TABLE task_attempts ADD COLUMN key_id text;
