/**
 * The run engine (AGENT.md): the job handler of `agent_run` jobs, one job per run, stepped by the same
 * durable worker machinery as media tasks (leases, reclaim after a crash, ROLE=worker). Each call does
 * one step and persists it before anything depends on it, so a run survives a killed process and
 * never repeats a completed step, charge or provider call:
 *
 *   reconcile open operations → by status: start queued / wait / drain a stop / step a running run,
 *   where a running run applies steering, titles an unnamed conversation, carries out the last model
 *   turn's tool calls in order, waits for its media, and otherwise asks the model for the next turn.
 */
import type { RunRow } from '../../../ports/agent-store.port.ts';
import { isTerminalRun } from '../../../domain/agent/run-status.ts';
import { newId } from '../../../domain/ids.ts';
import type { ClaimedJob } from '../../../ports/work-queue.port.ts';
import type { JobContext, JobHandler, JobOutcome } from '../../../ports/work-queue.port.ts';
import { endRun, moveRun } from '../runs/run-lifecycle.ts';
import { steersOf } from '../runs/run-snapshot.ts';
import type { EngineDeps, StepClock } from './engine-deps.ts';
import { extractStep, modelStep, titleStep } from './model-step.ts';
import { isFinalizing } from './structured-output.ts';
import { analysisStep, nextAnalysis, reportUnanalysable } from './analysis-step.ts';
import { loadSkills, skillsToLoad } from './skill-step.ts';
import { workflowStep } from './workflow-step.ts';
import { reconcileOperations } from './reconcile.ts';
import { lastTurn, loadRunState, nextPosition, openOperations, type RunState, toolStepFor } from './run-state.ts';
import { IDLE, later, NOW, type StepOutcome } from './step-outcome.ts';
import { handleToolCall } from './tool-registry.ts';
import { stepCompleted } from '../../../domain/agent/agent-events.ts';
import { runScope } from '../events/event-log.ts';

/** How often a run that waits for media (or drains a stop) looks at its tasks without being woken. */
const MEDIA_POLL_MS = 60_000;

export function createRunJobHandler(deps: EngineDeps): JobHandler {
  return async (job: ClaimedJob, signal: AbortSignal, context: JobContext): Promise<JobOutcome> => {
    const started = performance.now();
    const clock: StepClock = { modelWaitMs: 0 };
    const run = await deps.store.findRun(deps.uow.direct, job.refId);
    if (!run) return { kind: 'done' };
    const outcome = isTerminalRun(run.status) ? await settleAfterEnd(deps, run) : await stepRun(deps, run, signal, clock);
    deps.metrics?.agentEngineTime.observe({ outcome: outcome.next }, Math.max(0, performance.now() - started - clock.modelWaitMs) / 1000);
    if (outcome.next === 'now') return { kind: 'again', runAt: Date.now() };
    const runAt = outcome.next === 'later' ? Date.now() + outcome.afterMs : undefined;
    // Set aside (or put off) until something schedules the run again. Whatever does bumps its wake
    // counter in its own transaction; one that came since this step began (its enqueue changed nothing
    // while we held the job) is seen here and the run is stepped again at once: no wake-up is lost.
    const setAside = await deps.uow.transaction(async (tx) => {
      if (!(await deps.store.noWakeSince(tx, run.id, run.wake_seq))) return false;
      return runAt === undefined ? context.complete(tx) : context.reschedule(tx, runAt);
    });
    return setAside ? { kind: 'done', settled: true } : { kind: 'again', runAt: Date.now() };
  };
}

/**
 * A run that ended (failed, cancelled) may still have a generation running that it dispatched before:
 * it is settled when it ends (its task's end schedules this job), so the run's books close exactly.
 */
async function settleAfterEnd(deps: EngineDeps, run: RunRow): Promise<StepOutcome> {
  const state = await loadRunState(deps, run);
  if (openOperations(state).length === 0) return IDLE;
  await reconcileOperations(deps, state);
  const after = await loadRunState(deps, (await deps.store.findRun(deps.uow.direct, run.id)) ?? run);
  return openOperations(after).length === 0 ? IDLE : later(MEDIA_POLL_MS);
}

async function stepRun(deps: EngineDeps, initial: RunRow, signal: AbortSignal, clock: StepClock): Promise<StepOutcome> {
  let state = await loadRunState(deps, initial);
  if (await reconcileOperations(deps, state)) {
    const run = await deps.store.findRun(deps.uow.direct, initial.id);
    if (!run || isTerminalRun(run.status)) return IDLE;
    state = await loadRunState(deps, run);
  }
  const { run } = state;
  switch (run.status) {
    case 'queued':
    case 'waiting_for_clarification':
    case 'waiting_for_model_approval':
    case 'waiting_for_budget':
    case 'completed':
    case 'failed':
    case 'cancelled':
      return IDLE;
    case 'waiting_for_media':
      if (openOperations(state).some((o) => o.kind === 'generation')) return later(MEDIA_POLL_MS);
      await deps.writer.run(async (tx, fx) => void (await moveRun(tx, fx, run, { to: 'running', from: ['waiting_for_media'], version: run.version })));
      return NOW;
    case 'stopping':
      if (openOperations(state).length > 0) return later(MEDIA_POLL_MS);
      await deps.writer.run(async (tx, fx) => void (await endRun(tx, fx, deps.writer.queue, run, { to: 'cancelled', from: ['stopping'] })));
      return IDLE;
    case 'running':
      return advance(deps, state, signal, clock);
  }
}

async function advance(deps: EngineDeps, state: RunState, signal: AbortSignal, clock: StepClock): Promise<StepOutcome> {
  const { run } = state;
  if (state.steps.length >= deps.config.maxSteps) {
    await deps.writer.run(async (tx, fx) => {
      await endRun(tx, fx, deps.writer.queue, run, { to: 'failed', from: ['running'], error: { code: 'step_limit', message: `the run took ${deps.config.maxSteps} steps without finishing` } });
    });
    return IDLE;
  }
  if (steersOf(run).length > 0) return applySteering(deps, state);
  if (isFinalizing(run)) return extractStep(deps, state, signal, clock);
  const file = await nextAnalysis(deps, state);
  if (file?.kind === 'analyse') return analysisStep(deps, state, file.row, signal, clock);
  if (file?.kind === 'report') return reportUnanalysable(deps, state, file.row, file.fileKind);
  const skills = await skillsToLoad(deps, state);
  if (skills.length > 0) return loadSkills(deps, state, skills);
  if (run.workflow_json !== null) {
    const move = await workflowStep(deps, state);
    if (move !== 'wait') return move;
    await deps.writer.run(async (tx, fx) => {
      await moveRun(tx, fx, run, { to: 'waiting_for_media', waitReason: 'media', from: ['running'], version: run.version });
    });
    return later(MEDIA_POLL_MS);
  }
  if (await needsTitle(deps, state)) return titleStep(deps, state, signal, clock);
  const last = lastTurn(state);
  if (last && last.turn.toolCalls.length > 0) {
    let pending = false;
    for (const call of last.turn.toolCalls) {
      const step = toolStepFor(state, call.id);
      if (step) {
        if (step.status === 'running' || step.status === 'waiting') pending = true;
        continue;
      }
      // The end of the run waits for the media of the same turn.
      if (call.name === 'finish' && openOperations(state).some((o) => o.kind === 'generation')) {
        pending = true;
        continue;
      }
      return handleToolCall(deps, state, call, signal, clock);
    }
    if (pending) {
      await deps.writer.run(async (tx, fx) => {
        await moveRun(tx, fx, run, { to: 'waiting_for_media', waitReason: 'media', from: ['running'], version: run.version });
      });
      return later(MEDIA_POLL_MS);
    }
  }
  return modelStep(deps, state, signal, clock);
}

/** Rule 3: steering texts enter at the step boundary, as steps the model reads as user messages. */
async function applySteering(deps: EngineDeps, state: RunState): Promise<StepOutcome> {
  const { run } = state;
  const notes = steersOf(run);
  await deps.writer.run(async (tx, fx) => {
    // Cleared first, guarded by the version read: a steer that arrived meanwhile makes this a no-op (next step takes both).
    if ((await deps.store.updateRun(tx, run.id, run.version, { steer_json: '[]', updated_at: fx.now })) === undefined) return;
    let position = nextPosition(state);
    for (const note of notes) {
      const stepId = newId('stp', fx.now);
      await deps.store.startStep(tx, { id: stepId, runId: run.id, position: position++, kind: 'steer', name: 'steer', status: 'completed', input: note, startedAt: fx.now });
      await fx.emit(stepCompleted(runScope(run), { stepId, kind: 'steer', status: 'completed', messageId: note.messageId, text: note.text }));
    }
  });
  return NOW;
}

async function needsTitle(deps: EngineDeps, state: RunState): Promise<boolean> {
  const { run } = state;
  if (run.mode !== 'auto' || run.run_no !== 1 || state.steps.some((s) => s.kind === 'title')) return false;
  const conversation = await deps.store.findConversation(deps.uow.direct, run.conversation_id);
  return conversation?.title_source === null && conversation.deleted_at === null;
}
