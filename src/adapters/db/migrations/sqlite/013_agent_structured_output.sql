-- The agent, part 2: structured output (SPEC rule 17). A run may carry a closed output schema; once its
-- main work is done it is finalized into a structured result (filled from known fields, or extracted
-- by a billed model call with one repair), before the run completes.
ALTER TABLE agent_runs ADD COLUMN output_schema_json TEXT;
-- auto or extract
ALTER TABLE agent_runs ADD COLUMN structured_mode TEXT;
ALTER TABLE agent_runs ADD COLUMN schema_hash TEXT;
-- The finalization: {status: pending | succeeded | failed, method, attempts, sourceSteps, error}.
ALTER TABLE agent_runs ADD COLUMN structured_json TEXT;
ALTER TABLE agent_runs ADD COLUMN structured_result_json TEXT;
