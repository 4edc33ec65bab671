import type { AgentSettings } from '../../../domain/agent/agent-settings.ts';
import type { ProjectBrand } from '../../../domain/agent/project-content.ts';
import type { RunRow, StepRow } from '../../../ports/agent-store.port.ts';

/** What a run keeps from the moment it was accepted (rule 9: later setting changes do not reach it). */
export interface RunSnapshot {
  settings: AgentSettings;
  mode: 'auto' | 'manual';
  /** Manual mode: the pinned model (a text model drives the run; a media model makes its media). */
  selectedModelId: string | null;
  profileId: string | null;
  /** The conversation's project as the run started with it (rule 9, "Versioning"); absent without one. */
  project?: RunProject;
}

export interface RunProject {
  projectId: string;
  version: number;
  name: string;
  instructions: string;
  brand: ProjectBrand;
}

export function snapshotOf(run: RunRow): RunSnapshot {
  return JSON.parse(run.settings_json) as RunSnapshot;
}

/** Model changes approved during the run, by modality (`text` switches the orchestrator). */
export type ModelOverrides = Partial<Record<'text' | 'image' | 'video' | 'music', string>>;

export function overridesOf(run: RunRow): ModelOverrides {
  return JSON.parse(run.overrides_json) as ModelOverrides;
}

export interface SteerNote {
  messageId: string;
  text: string;
}

export function steersOf(run: RunRow): SteerNote[] {
  return JSON.parse(run.steer_json) as SteerNote[];
}

/**
 * Rule 3 and AGENT.md: steering goes to an automatic run that is working, at a step boundary: not
 * while its text model is answering (that answer would not see it), not while it waits for the user.
 */
export function canSteer(run: RunRow, steps: StepRow[]): boolean {
  if (run.mode !== 'auto') return false;
  if (run.status !== 'running' && run.status !== 'waiting_for_media') return false;
  return !steps.some((s) => (s.kind === 'model' || s.kind === 'title') && s.status === 'running');
}
