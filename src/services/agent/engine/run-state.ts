/**
 * What the engine reads about a run before each step, and the questions it asks of it: which model
 * drives it, which tool calls of the last model turn are still to be handled, what is still open.
 */
import type { AgentStore, ArtifactRow, OperationRow, PendingActionRow, RunRow, StepRow } from '../../../ports/agent-store.port.ts';
import type { UnitOfWork } from '../../../ports/unit-of-work.port.ts';
import { overridesOf, snapshotOf } from '../runs/run-snapshot.ts';

export interface RunState {
  run: RunRow;
  steps: StepRow[];
  operations: OperationRow[];
  actions: PendingActionRow[];
  artifacts: ArtifactRow[];
}

export async function loadRunState(deps: { store: AgentStore; uow: UnitOfWork }, run: RunRow): Promise<RunState> {
  const { store, uow } = deps;
  const [steps, operations, actions, artifacts] = await Promise.all([
    store.listSteps(uow.direct, run.id),
    store.listRunOperations(uow.direct, run.id),
    store.listRunActions(uow.direct, run.id),
    store.listRunArtifacts(uow.direct, run.id),
  ]);
  return { run, steps, operations, actions, artifacts };
}

/** A model step's answer as stored in its output. */
export interface ModelTurn {
  text: string;
  toolCalls: Array<{ id: string; name: string; arguments: string }>;
  chatRequestId: string;
  model: string;
}

export function turnOf(step: StepRow): ModelTurn | undefined {
  if (step.kind !== 'model' || step.status !== 'completed' || step.output_json === null) return undefined;
  return JSON.parse(step.output_json) as ModelTurn;
}

/** The last completed model step (the turn whose tool calls the run is carrying out). */
export function lastTurn(state: RunState): { step: StepRow; turn: ModelTurn } | undefined {
  for (let i = state.steps.length - 1; i >= 0; i--) {
    const step = state.steps[i] as StepRow;
    const turn = turnOf(step);
    if (turn) return { step, turn };
  }
  return undefined;
}

export function toolStepFor(state: RunState, toolCallId: string): StepRow | undefined {
  return state.steps.find((s) => s.kind === 'tool' && s.tool_call_id === toolCallId);
}

export function openOperations(state: RunState): OperationRow[] {
  return state.operations.filter((o) => o.state === 'committed');
}

export function nextPosition(state: RunState): number {
  return (state.steps.at(-1)?.position ?? 0) + 1;
}

/**
 * The models that may drive the run, in order (rule 8): the orchestrator (or the model an approved
 * change put in its place), then the explicit fallbacks.
 */
export function modelChain(run: RunRow): string[] {
  const snapshot = snapshotOf(run);
  const first = overridesOf(run).text ?? run.orchestrator_model_id;
  const pinned = snapshot.mode === 'manual' && snapshot.selectedModelId === run.orchestrator_model_id;
  // A manually selected text model stays pinned (rule 9): fallbacks do not replace it unasked.
  const fallbacks = pinned ? [] : snapshot.settings.fallbackModelIds.filter((id) => id !== first);
  return [first, ...fallbacks];
}

/** What a call step was about (an analysis: the attachment id), from its input. */
export function targetOf(step: StepRow): string | undefined {
  const input = JSON.parse(step.input_json) as { target?: unknown };
  return typeof input.target === 'string' ? input.target : undefined;
}
