-- The agent, part 2: context references (SPEC rule 13). A conversation lists other conversations of the
-- same user and storefront its runs may search; each run keeps the list and the moment it started,
-- so messages written later never enter its input.
ALTER TABLE agent_conversations ADD COLUMN context_json text NOT NULL DEFAULT '[]';
ALTER TABLE agent_conversations ADD COLUMN context_version integer NOT NULL DEFAULT 0;
ALTER TABLE agent_runs ADD COLUMN context_json text;
