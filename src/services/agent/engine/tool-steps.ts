/**
 * Handlers of the orchestrator's tools (tool-registry.ts binds them to the names): media generation
 * (dispatched by media-dispatch.ts), a clarification question, a model-change proposal, and the end
 * of the run. Arguments that do not fit a tool's schema are answered as a refused result for the
 * model to fix; nothing is charged for them.
 */
import type {
  AskClarificationArguments,
  FinishArguments,
  MediaToolArguments,
  MediaToolName,
  Modality,
  ProposeModelChangeArguments,
} from '../../../domain/agent/agent-tools.ts';
import { newId } from '../../../domain/ids.ts';
import { moveRun } from '../runs/run-lifecycle.ts';
import type { EngineDeps } from './engine-deps.ts';
import { completeOrFinalize } from './structured-output.ts';
import { dispatchMedia } from './media-dispatch.ts';
import { pinnedMediaModel, defaultMediaModel } from './media-choice.ts';
import { propose } from './proposals.ts';
import { modelChain, nextPosition, type RunState } from './run-state.ts';
import { IDLE, NOW, type StepOutcome } from './step-outcome.ts';
import { recordToolResult, writeToolResult } from './tool-results.ts';
import { questionAsked } from '../../../domain/agent/agent-events.ts';
import { runScope } from '../events/event-log.ts';

export interface ToolCall {
  id: string;
  name: string;
  arguments: string;
}

/** A media tool: its arguments checked, then a paid generation dispatched within the run's limit. */
export async function mediaTool(deps: EngineDeps, state: RunState, call: ToolCall & { name: MediaToolName }, fields: Record<string, unknown>): Promise<StepOutcome> {
  const parsed = mediaArguments(fields);
  if (typeof parsed === 'string') return recordToolResult(deps, state, { ...call, args: fields }, { status: 'refused', error: parsed });
  return dispatchMedia(deps, state, { id: call.id, name: call.name, args: parsed });
}

function mediaArguments(fields: Record<string, unknown>): MediaToolArguments | string {
  if (typeof fields.prompt !== 'string' || fields.prompt.trim() === '') return 'prompt is required';
  if (fields.prompt.length > 20_000) return 'prompt is at most 20,000 characters';
  const out: MediaToolArguments = { prompt: fields.prompt.trim() };
  if (fields.model !== undefined) {
    if (typeof fields.model !== 'string') return 'model must be a model id';
    out.model = fields.model;
  }
  if (fields.aspectRatio !== undefined) {
    if (typeof fields.aspectRatio !== 'string') return 'aspectRatio must be a string such as 16:9';
    out.aspectRatio = fields.aspectRatio;
  }
  if (fields.durationSeconds !== undefined) {
    if (typeof fields.durationSeconds !== 'number' || !Number.isFinite(fields.durationSeconds) || fields.durationSeconds <= 0 || fields.durationSeconds > 600) return 'durationSeconds must be a number of seconds';
    out.durationSeconds = fields.durationSeconds;
  }
  if (fields.referenceArtifactIds !== undefined) {
    if (!Array.isArray(fields.referenceArtifactIds) || fields.referenceArtifactIds.length > 14 || fields.referenceArtifactIds.some((id) => typeof id !== 'string')) return 'referenceArtifactIds must be at most 14 artifact ids';
    out.referenceArtifactIds = fields.referenceArtifactIds as string[];
  }
  if (fields.instrumental !== undefined) {
    if (typeof fields.instrumental !== 'boolean') return 'instrumental must be true or false';
    out.instrumental = fields.instrumental;
  }
  for (const key of ['title', 'style'] as const) {
    const value = fields[key];
    if (value === undefined) continue;
    if (typeof value !== 'string' || value.length > 1000) return `${key} must be a short string`;
    out[key] = value;
  }
  if (fields.options !== undefined) {
    if (fields.options === null || typeof fields.options !== 'object' || Array.isArray(fields.options)) return 'options must be an object of model input fields';
    if (JSON.stringify(fields.options).length > 20_000) return 'options is too large';
    out.options = fields.options as Record<string, unknown>;
  }
  return out;
}

/** Rule 4: the run waits for the answer; the reply keeps its limit. */
export async function askQuestion(deps: EngineDeps, state: RunState, call: ToolCall, fields: Record<string, unknown>): Promise<StepOutcome> {
  if (typeof fields.question !== 'string' || fields.question.trim() === '' || fields.question.length > 2000) {
    return recordToolResult(deps, state, { ...call, args: fields }, { status: 'refused', error: 'question must be a short text' });
  }
  const choices = Array.isArray(fields.choices) ? fields.choices.filter((c): c is string => typeof c === 'string').slice(0, 8) : [];
  const args: AskClarificationArguments = { question: fields.question.trim(), ...(choices.length ? { choices } : {}) };
  const { run } = state;
  await deps.writer.run(async (tx, fx) => {
    const stepId = newId('stp', fx.now);
    const questionId = newId('q', fx.now);
    const moved = await moveRun(tx, fx, run, { to: 'waiting_for_clarification', waitReason: 'question', from: ['running'], detail: { questionId } });
    if (moved === undefined) return;
    await deps.store.startStep(tx, { id: stepId, runId: run.id, position: nextPosition(state), kind: 'tool', name: call.name, status: 'waiting', toolCallId: call.id, input: { arguments: args }, startedAt: fx.now });
    await deps.store.addPendingAction(tx, {
      id: questionId,
      run_id: run.id,
      step_id: stepId,
      kind: 'question',
      status: 'pending',
      version: 1,
      proposal_hash: null,
      payload_json: JSON.stringify(args),
      response_json: null,
      created_at: fx.now,
      expires_at: null,
      resolved_at: null,
    });
    await fx.emit(questionAsked(runScope(run), { questionId, stepId, ...args }));
  });
  return IDLE;
}

export async function proposeChange(deps: EngineDeps, state: RunState, call: ToolCall, fields: Record<string, unknown>): Promise<StepOutcome> {
  const parsed = proposalArguments(deps, fields);
  if (typeof parsed === 'string') return recordToolResult(deps, state, { ...call, args: fields }, { status: 'refused', error: parsed });
  const { run } = state;
  const from = currentModel(deps, state, parsed.modality);
  if (from === parsed.toModelId) return recordToolResult(deps, state, { ...call, args: fields }, { status: 'refused', error: `${from} is already the ${parsed.modality} model of this run` });
  await deps.writer.run(async (tx, fx) => {
    const stepId = newId('stp', fx.now);
    const proposal = {
      modality: parsed.modality,
      fromModelId: from,
      toModelId: parsed.toModelId,
      reason: parsed.reason,
      ...(parsed.requiredReferenceImages !== undefined ? { requiredReferenceImages: parsed.requiredReferenceImages } : {}),
      origin: 'tool' as const,
    };
    // The proposal moves the run first: when it no longer runs, nothing is written.
    if (!(await propose(tx, fx, run, proposal, stepId))) return;
    await deps.store.startStep(tx, { id: stepId, runId: run.id, position: nextPosition(state), kind: 'tool', name: call.name, status: 'waiting', toolCallId: call.id, input: { arguments: parsed }, startedAt: fx.now });
  });
  return IDLE;
}

function proposalArguments(deps: EngineDeps, fields: Record<string, unknown>): ProposeModelChangeArguments | string {
  const modalities: Modality[] = ['text', 'image', 'video', 'music'];
  if (typeof fields.modality !== 'string' || !modalities.includes(fields.modality as Modality)) return 'modality must be text, image, video or music';
  const modality = fields.modality as Modality;
  if (typeof fields.toModelId !== 'string') return 'toModelId must be a model id';
  const to = fields.toModelId;
  const fits = modality === 'text' ? deps.catalog.chat(to) !== undefined : deps.catalog.media(to)?.type === modality.toUpperCase();
  if (!fits) return `${to.slice(0, 80)} is not an available ${modality} model`;
  if (typeof fields.reason !== 'string' || fields.reason.trim() === '') return 'reason is required';
  const out: ProposeModelChangeArguments = { modality, toModelId: to, reason: fields.reason.slice(0, 1000) };
  if (fields.requiredReferenceImages !== undefined) {
    if (typeof fields.requiredReferenceImages !== 'number' || !Number.isInteger(fields.requiredReferenceImages) || fields.requiredReferenceImages < 0) return 'requiredReferenceImages must be a whole number';
    out.requiredReferenceImages = fields.requiredReferenceImages;
  }
  return out;
}

/** The model the run uses now for a modality. */
export function currentModel(deps: EngineDeps, state: RunState, modality: Modality): string {
  if (modality === 'text') return modelChain(state.run)[state.run.model_attempt] ?? state.run.orchestrator_model_id;
  return pinnedMediaModel(deps.catalog, state.run, modality) ?? defaultMediaModel(deps.catalog, state.run, modality);
}

export async function finish(deps: EngineDeps, state: RunState, call: ToolCall, fields: Record<string, unknown>): Promise<StepOutcome> {
  const summary = typeof fields.summary === 'string' && fields.summary.trim() !== '' ? fields.summary.trim().slice(0, 20_000) : 'Done.';
  const known = new Set(state.artifacts.map((a) => a.id));
  const requested = Array.isArray(fields.artifactIds) ? fields.artifactIds.filter((id): id is string => typeof id === 'string' && known.has(id)) : undefined;
  const args: FinishArguments = { summary, ...(requested ? { artifactIds: requested } : {}) };
  const artifactIds = requested && requested.length > 0 ? requested : [...known];
  const { run } = state;
  await deps.writer.run(async (tx, fx) => {
    await writeToolResult(tx, fx, run, { kind: 'new', position: nextPosition(state), call: { id: call.id, name: call.name, args } }, { status: 'completed' });
    await completeOrFinalize(tx, fx, deps.writer.queue, run, { text: summary, artifactIds });
  });
  return NOW;
}
