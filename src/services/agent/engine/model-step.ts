/**
 * The orchestrator's turn: check the model may drive the run (a verified tool-calling route, rule
 * 10), price the call's hold, commit it against the run's limit (or wait for budget before anything
 * is sent), call, then settle the step and its charge in one transaction. A confirmed failure moves
 * to the next fallback model (rule 8); the call's hold was released by the text layer before it
 * reported the failure.
 */
import type { ArtifactRow, RunRow } from '../../../ports/agent-store.port.ts';
import { TITLE_INSTRUCTION } from '../../../domain/agent/agent-tools.ts';
import type { ChatRequest } from '../../../domain/chat/chat-request.types.ts';
import { newId } from '../../../domain/ids.ts';
import { endRun, type MainOutcome } from '../runs/run-lifecycle.ts';
import { snapshotOf } from '../runs/run-snapshot.ts';
import type { EngineDeps, StepClock } from './engine-deps.ts';
import { waitForBudget } from './media-dispatch.ts';
import { callOrchestrator, type CallOutcome } from './orchestrator-call.ts';
import { propose } from './proposals.ts';
import { closeRunOperation, commitOperation } from './run-budget.ts';
import { modelChain, type ModelTurn, nextPosition, type RunState } from './run-state.ts';
import { IDLE, NOW, type StepOutcome } from './step-outcome.ts';
import { requestFiles } from './request-files.ts';
import { completeOrFinalize, finishStructured, nextExtraction } from './structured-output.ts';
import { buildOrchestratorRequest, type EarlierExchange } from './transcript.ts';
import { conversationUpdated, stepCompleted, stepStarted } from '../../../domain/agent/agent-events.ts';
import { runScope } from '../events/event-log.ts';

const TITLE_MAX_TOKENS = 24;
const HISTORY_RUNS = 10;

export async function modelStep(deps: EngineDeps, state: RunState, signal: AbortSignal, clock: StepClock): Promise<StepOutcome> {
  const { run } = state;
  const chain = modelChain(run);
  const model = chain[run.model_attempt];
  if (model === undefined) return failRun(deps, run, 'orchestrator_unavailable', 'Every orchestrator model of this run failed; see the run\'s steps.');
  const verdict = await deps.capabilities.ensure(model, 'tools');
  if (verdict !== 'verified') return proposeToolRoute(deps, state, model);
  const request = await orchestratorRequest(deps, state, model);
  return runModelCall(deps, state, { kind: 'model', model, request, streamText: true }, signal, clock);
}

/** Rule 17: the run's structured result, filled from known fields or extracted by a billed call. */
export async function extractStep(deps: EngineDeps, state: RunState, signal: AbortSignal, clock: StepClock): Promise<StepOutcome> {
  const next = await nextExtraction(deps, state);
  if ('done' in next) return finishStructured(deps, state.run, next.done);
  return runModelCall(deps, state, { kind: 'extract', model: next.call.model, request: next.call.request, streamText: false }, signal, clock);
}

/** Rule 19: an unnamed conversation in automatic mode gets a short title from its first request. */
export async function titleStep(deps: EngineDeps, state: RunState, signal: AbortSignal, clock: StepClock): Promise<StepOutcome> {
  const { run } = state;
  const message = await deps.store.findMessage(deps.uow.direct, run.message_id);
  const model = modelChain(run)[0] ?? run.orchestrator_model_id;
  const project = snapshotOf(run).project;
  const request: ChatRequest = {
    model,
    // A conversation of a project is titled with the project's name, so the list shows where it belongs.
    system: [{ type: 'text', text: project ? `${TITLE_INSTRUCTION}\nProject "${project.name}": start the title with this name and a colon.` : TITLE_INSTRUCTION }],
    messages: [{ role: 'user', content: [{ type: 'text', text: (message?.text ?? '').slice(0, 2_000) }] }],
    tools: [],
    maxOutputTokens: TITLE_MAX_TOKENS,
    stop: [],
    stream: true,
  };
  return runModelCall(deps, state, { kind: 'title', model, request, streamText: false }, signal, clock);
}

export interface ModelCall {
  kind: 'model' | 'title' | 'extract' | 'analysis' | 'subtask';
  model: string;
  /** What the call is about (an analysis: the attachment id). */
  target?: string;
  request: ChatRequest;
  streamText: boolean;
}

export async function runModelCall(deps: EngineDeps, state: RunState, call: ModelCall, signal: AbortSignal, clock: StepClock): Promise<StepOutcome> {
  const { run } = state;
  const quote = deps.chat.quote({ protocol: 'openai', request: call.request, userId: state.run.user_id });
  const now = Date.now();
  const stepId = newId('stp', now);
  const chatRequestId = newId('chat', now);
  const position = nextPosition(state);
  const committed = await deps.writer.run(async (tx, fx) => {
    const op = await commitOperation(tx, fx, run, { stepId, kind: 'chat', refId: chatRequestId, model: call.model, estimateMicro: quote.holdMicro });
    if (!op) return (await deps.store.findRun(tx, run.id))?.status === 'running' ? 'over_limit' : 'not_running';
    await deps.store.startStep(tx, {
      id: stepId,
      runId: run.id,
      position,
      kind: call.kind,
      name: call.model,
      status: 'running',
      input: { model: call.model, chatRequestId, holdMicroUsd: String(quote.holdMicro), maxOutputTokens: quote.maxOutputTokens, ...(call.target ? { target: call.target } : {}) },
      startedAt: fx.now,
    });
    await fx.emit(stepStarted(runScope(run), { stepId, position, kind: call.kind, name: call.model, holdMicroUsd: String(quote.holdMicro) }));
    return 'committed';
  }, now);
  if (committed === 'not_running') return NOW;
  if (committed === 'over_limit') {
    // A title is a courtesy: without the budget for it, the conversation keeps a plain one.
    if (call.kind === 'title') return fallbackTitle(deps, state);
    return waitForBudget(deps, run, 'run_limit', quote.holdMicro);
  }
  deps.faults.at(call.kind === 'extract' ? 'agent.before_extract_call' : 'agent.before_model_call');
  const calledAt = performance.now();
  const outcome = await callOrchestrator(deps, { run, stepId, chatRequestId, request: call.request, maxChargeMicro: quote.holdMicro, model: quote.model, priceMultiplierPpm: quote.priceMultiplierPpm, streamText: call.streamText, signal });
  clock.modelWaitMs += performance.now() - calledAt;
  deps.faults.at('agent.after_model_call');
  if (!outcome.ok && outcome.insufficientBalance && call.kind !== 'title') {
    await closeCall(deps, state, stepId, chatRequestId, outcome);
    return waitForBudget(deps, run, 'insufficient_balance', quote.holdMicro);
  }
  return closeCall(deps, state, stepId, chatRequestId, outcome, call);
}

/**
 * One transaction after the call: the step's result, the operation settled at what the text layer
 * charged (its record was written before the call returned), and for a final answer the run's end.
 */
async function closeCall(deps: EngineDeps, state: RunState, stepId: string, chatRequestId: string, outcome: CallOutcome, call?: ModelCall): Promise<StepOutcome> {
  const { run } = state;
  const charge = await deps.store.findCallCharge(deps.uow.direct, chatRequestId);
  let next: StepOutcome = NOW;
  await deps.writer.run(async (tx, fx) => {
    const op = await deps.store.findOperationByRef(tx, 'chat', chatRequestId);
    if (op && op.state === 'committed') {
      // No record: the call never held anything (refused before the hold), so nothing was charged.
      await closeRunOperation(tx, fx, run, op, charge && charge.costMicro > 0 ? 'settled' : 'released', charge?.costMicro ?? 0);
    }
    const cost = Math.min(charge?.costMicro ?? 0, Number(op?.estimate_micro ?? 0));
    if (!outcome.ok) {
      const status = outcome.aborted ? 'cancelled' : 'failed';
      if (!(await deps.store.finishStep(tx, stepId, ['running'], { status, output: { error: { code: outcome.code, message: outcome.message } }, costMicro: cost, finishedAt: fx.now }))) return;
      await fx.emit(stepCompleted(runScope(run), { stepId, kind: call?.kind ?? 'model', status, error: { code: outcome.code, message: outcome.message }, costMicroUsd: String(cost) }));
      // A failed extraction call is one of its attempts; the orchestrator chain stays as it is.
      if (call?.kind !== 'model' || outcome.aborted || outcome.insufficientBalance) return;
      const current = await deps.store.findRun(tx, run.id);
      // The key's spend cap refused the hold: no other model can help, the run ends in its words.
      if (outcome.code === 'key_spend_cap_reached') {
        if (current) await endRun(tx, fx, deps.writer.queue, current, { to: 'failed', error: { code: outcome.code, message: outcome.message }, from: ['running'] });
        return;
      }
      // A confirmed failure, its hold released: the next explicit fallback model takes over (rule 8).
      if (current) await deps.store.updateRun(tx, run.id, current.version, { model_attempt: current.model_attempt + 1, updated_at: fx.now });
      return;
    }
    if (call?.kind === 'extract' || call?.kind === 'analysis' || call?.kind === 'subtask') {
      await deps.store.finishStep(tx, stepId, ['running'], { status: 'completed', output: { text: outcome.text }, costMicro: cost, finishedAt: fx.now });
      await fx.emit(stepCompleted(runScope(run), { stepId, kind: call.kind, status: 'completed', costMicroUsd: String(cost) }));
      return;
    }
    if (call?.kind === 'title') {
      const title = cleanTitle(outcome.text);
      await deps.store.finishStep(tx, stepId, ['running'], { status: 'completed', output: { title }, costMicro: cost, finishedAt: fx.now });
      await fx.emit(stepCompleted(runScope(run), { stepId, kind: 'title', status: 'completed', costMicroUsd: String(cost) }));
      if (title && (await deps.store.setGeneratedTitle(tx, run.conversation_id, title))) {
        await fx.emit(conversationUpdated(run.conversation_id, { title, titleSource: 'generated' }));
      }
      return;
    }
    const turn: ModelTurn = { text: outcome.text, toolCalls: outcome.toolCalls, chatRequestId, model: call?.model ?? '' };
    if (!(await deps.store.finishStep(tx, stepId, ['running'], { status: 'completed', output: turn, costMicro: cost, finishedAt: fx.now }))) return;
    await fx.emit(
      stepCompleted(runScope(run), {
        stepId,
        kind: 'model',
        status: 'completed',
        text: outcome.text,
        toolCalls: outcome.toolCalls.map((c) => ({ id: c.id, name: c.name })),
        costMicroUsd: String(cost),
      }),
    );
    if (outcome.toolCalls.length === 0) {
      // An answer without tool calls is the run's final answer (then its structured result, if asked).
      await completeOrFinalize(tx, fx, deps.writer.queue, run, finalOutcome(outcome.text, state.artifacts));
      next = NOW;
    }
  });
  return next;
}

function finalOutcome(text: string, artifacts: ArtifactRow[]): MainOutcome {
  return { text: text.trim() === '' ? 'Done.' : text.trim(), artifactIds: artifacts.map((a) => a.id) };
}

/** Rule 10: no verified tool-calling route. The run waits for consent to switch, never drops its tools. */
async function proposeToolRoute(deps: EngineDeps, state: RunState, model: string): Promise<StepOutcome> {
  const { run } = state;
  if (state.actions.some((a) => a.kind === 'model_change' && a.status === 'pending')) return IDLE;
  const candidate = await verifiedAlternative(deps, run, model);
  if (!candidate) return failRun(deps, run, 'model_capability_unavailable', `${model} has no route with verified tool calling, and no other text model has one.`);
  await deps.writer.run(async (tx, fx) => {
    await propose(tx, fx, run, { modality: 'text', fromModelId: model, toModelId: candidate, reason: `${model} has no route with verified tool calling; ${candidate} has one.`, origin: 'tool_route' }, null);
  });
  return IDLE;
}

/** The first model with a verified tool route: the run's fallbacks, the settings' orchestrator, then any. */
async function verifiedAlternative(deps: EngineDeps, run: RunRow, except: string): Promise<string | undefined> {
  const settings = JSON.parse(run.settings_json) as { settings: { orchestratorModelId: string; fallbackModelIds: string[] } };
  // The run's own candidates are probed if need be; any other model only if it was verified before.
  const own = [...settings.settings.fallbackModelIds, settings.settings.orchestratorModelId].filter((id) => id !== except);
  for (const id of new Set(own)) if ((await deps.capabilities.ensure(id, 'tools')) === 'verified') return id;
  for (const model of deps.catalog.chatModels()) {
    if (model.id !== except && (await deps.capabilities.modelVerdict(model.id, 'tools')) === 'verified') return model.id;
  }
  return undefined;
}

async function failRun(deps: EngineDeps, run: RunRow, code: string, message: string): Promise<StepOutcome> {
  await deps.writer.run(async (tx, fx) => {
    const current = await deps.store.findRun(tx, run.id);
    if (current) await endRun(tx, fx, deps.writer.queue, current, { to: 'failed', error: { code, message }, from: ['running'] });
  });
  return NOW;
}

async function fallbackTitle(deps: EngineDeps, state: RunState): Promise<StepOutcome> {
  const message = await deps.store.findMessage(deps.uow.direct, state.run.message_id);
  const title = cleanTitle((message?.text ?? '').split(/\s+/).slice(0, 6).join(' ')) || 'New conversation';
  await deps.writer.run(async (tx, fx) => {
    // The title step is recorded (skipped) so the run does not try again.
    await deps.store.startStep(tx, {
      id: newId('stp', fx.now),
      runId: state.run.id,
      position: nextPosition(state),
      kind: 'title',
      name: 'fallback',
      status: 'completed',
      input: { reason: 'no budget for a generated title' },
      output: { title },
      startedAt: fx.now,
    });
    if (await deps.store.setGeneratedTitle(tx, state.run.conversation_id, title)) {
      await fx.emit(conversationUpdated(state.run.conversation_id, { title, titleSource: 'generated' }));
    }
  });
  return NOW;
}

function cleanTitle(text: string): string {
  return text.replace(/^["'“”\s#*]+|["'“”\s.*]+$/g, '').replace(/\s+/g, ' ').slice(0, 80).trim();
}

async function orchestratorRequest(deps: EngineDeps, state: RunState, model: string): Promise<ChatRequest> {
  const { run } = state;
  const { store } = deps;
  const db = deps.uow.direct;
  const message = await store.findMessage(db, run.message_id);
  const earlierRuns = await store.listEarlierRuns(db, run.conversation_id, run.run_no, HISTORY_RUNS);
  const earlier: EarlierExchange[] = [];
  for (const other of earlierRuns) {
    const request = await store.findMessage(db, other.message_id);
    if (!request) continue;
    const outcome = other.outcome_json ? (JSON.parse(other.outcome_json) as MainOutcome) : undefined;
    const answer = outcome ? `${outcome.text}${outcome.artifactIds.length ? `\n(artifacts: ${outcome.artifactIds.join(', ')})` : ''}` : other.status === 'completed' ? null : `(that run ended ${other.status})`;
    earlier.push({ request: request.text, answer });
  }
  const artifacts = await store.listRecentConversationArtifacts(db, run.conversation_id, 20);
  const prompts = new Map<string, string>();
  for (const step of await store.findSteps(db, [...new Set(artifacts.map((a) => a.step_id))])) {
    const input = JSON.parse(step.input_json) as { arguments?: { prompt?: unknown } };
    const prompt = input.arguments?.prompt;
    if (typeof prompt !== 'string') continue;
    for (const a of artifacts) if (a.step_id === step.id) prompts.set(a.id, prompt.length > 120 ? `${prompt.slice(0, 120)}…` : prompt);
  }
  return buildOrchestratorRequest(deps.catalog, {
    run,
    requestText: message?.text ?? '',
    files: await requestFiles(deps, run.conversation_id, message?.content_json, state.steps),
    steps: state.steps,
    earlier,
    artifacts,
    artifactPrompts: prompts,
    model,
    maxOutputTokens: Math.min(deps.config.maxOutputTokens, deps.catalog.chat(model)?.maxOutputTokens ?? deps.config.maxOutputTokens),
  });
}
