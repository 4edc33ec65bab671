/**
 * Rule 15: before the first orchestrator turn of an automatic run, the built-in skills its request
 * calls for are loaded as `skill` steps, each with its version and text frozen, shown in the run's
 * activity (steps and events); the orchestrator reads them from those steps, never from the current
 * catalogue, so a later change of a skill does not touch the run.
 */
import { type Skill, skillsFor } from '../../../domain/agent/skills.ts';
import { newId } from '../../../domain/ids.ts';
import type { ContentBlock } from '../conversations/message-input.ts';
import type { EngineDeps } from './engine-deps.ts';
import { nextPosition, type RunState } from './run-state.ts';
import { NOW, type StepOutcome } from './step-outcome.ts';
import { stepCompleted } from '../../../domain/agent/agent-events.ts';
import { runScope } from '../events/event-log.ts';

export interface AppliedSkill {
  skillId: string;
  version: string;
  name: string;
  instructions: string;
}

/** The skills to load now: only in automatic mode, once, before the first model turn. */
export async function skillsToLoad(deps: EngineDeps, state: RunState): Promise<Skill[]> {
  const { run } = state;
  // A workflow is its own recipe: it loads no skill.
  if (run.mode !== 'auto' || run.workflow_json !== null || state.steps.some((s) => s.kind === 'skill' || s.kind === 'model')) return [];
  const message = await deps.store.findMessage(deps.uow.direct, run.message_id);
  if (!message) return [];
  const content = JSON.parse(message.content_json) as ContentBlock[];
  return skillsFor(message.text, { hasMask: content.some((b) => b.type === 'attachment' && b.maskFor !== undefined) });
}

export async function loadSkills(deps: EngineDeps, state: RunState, skills: Skill[]): Promise<StepOutcome> {
  const { run } = state;
  await deps.writer.run(async (tx, fx) => {
    let position = nextPosition(state);
    for (const skill of skills) {
      const stepId = newId('stp', fx.now);
      const applied: AppliedSkill = { skillId: skill.id, version: skill.version, name: skill.name, instructions: skill.instructions };
      await deps.store.startStep(tx, { id: stepId, runId: run.id, position: position++, kind: 'skill', name: skill.id, status: 'completed', input: applied, output: { loaded: true }, startedAt: fx.now });
      await fx.emit(stepCompleted(runScope(run), { stepId, kind: 'skill', name: skill.id, version: skill.version, status: 'completed' }));
    }
  });
  return NOW;
}
