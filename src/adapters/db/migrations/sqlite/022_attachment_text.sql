-- Issue 17, item 8: the text a run reads of a text or PDF attachment is extracted once, when the
-- upload is completed (in the CPU pool), and kept here instead of being extracted at every step.
-- NULL for originals completed before this column existed: they are read once more, then kept.
ALTER TABLE agent_attachments ADD COLUMN text_excerpt TEXT;
