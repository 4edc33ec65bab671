-- The agent, part 2: workflows (SPEC rule 14). A run that carries out a built-in workflow keeps which
-- one, its version and the input given with the message; answers to missing inputs are its steps.
ALTER TABLE agent_runs ADD COLUMN workflow_json TEXT;
