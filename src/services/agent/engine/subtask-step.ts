/**
 * Subtasks (SPEC rule 16): the orchestrator may hand a piece of thinking to a helper call
 * (`run_subtask {instructions, context}`): at most two per request, each within a third of the run's
 * limit and 60 seconds, on the run's current orchestrator model, seeing only the context it is given,
 * answering text (the main agent makes the media). A subtask is a `subtask` step: its hold and charge
 * count toward the run's limit like any call, and stopping the run aborts it with the run's other work.
 * When it ends, its text (or why it failed) becomes the tool call's result.
 */
import type { ToolResult } from '../../../domain/agent/tool-result.ts';
import type { ChatRequest } from '../../../domain/chat/chat-request.types.ts';
import type { EngineDeps, StepClock } from './engine-deps.ts';
import { runModelCall } from './model-step.ts';
import { modelChain, type RunState, targetOf } from './run-state.ts';
import type { StepOutcome } from './step-outcome.ts';
import { recordToolResult } from './tool-results.ts';

export const MAX_SUBTASKS = 2;
export const SUBTASK_TIMEOUT_MS = 60_000;
const MAX_OUTPUT_TOKENS = 2_048;
const MIN_OUTPUT_TOKENS = 64;
const MAX_CONTEXT_CHARS = 40_000;

interface SubtaskCall {
  id: string;
  name: string;
  args: Record<string, unknown>;
}

export async function subtaskStep(deps: EngineDeps, state: RunState, call: SubtaskCall, signal: AbortSignal, clock: StepClock): Promise<StepOutcome> {
  const own = state.steps.find((s) => s.kind === 'subtask' && targetOf(s) === call.id);
  if (own && own.status !== 'running') return recordToolResult(deps, state, call, resultOf(own.status, own.output_json, own.cost_micro));
  const { instructions, context } = call.args;
  if (typeof instructions !== 'string' || instructions.trim() === '' || instructions.length > 8_000) {
    return recordToolResult(deps, state, call, { status: 'refused', error: 'instructions must be a text of at most 8,000 characters' });
  }
  if (context !== undefined && (typeof context !== 'string' || context.length > MAX_CONTEXT_CHARS)) {
    return recordToolResult(deps, state, call, { status: 'refused', error: `context must be a text of at most ${MAX_CONTEXT_CHARS} characters` });
  }
  if (state.steps.filter((s) => s.kind === 'subtask').length >= MAX_SUBTASKS) {
    return recordToolResult(deps, state, call, { status: 'refused', error: `a request allows at most ${MAX_SUBTASKS} subtasks; do the rest yourself` });
  }
  const { run } = state;
  const model = modelChain(run)[run.model_attempt] ?? run.orchestrator_model_id;
  const request = subtaskRequest(model, instructions, typeof context === 'string' ? context : '');
  // A third of the run's limit: the output cap shrinks until the call's hold fits in it.
  const third = Math.floor(Number(run.limit_micro) / 3);
  let tokens = MAX_OUTPUT_TOKENS;
  while (deps.chat.quote({ protocol: 'openai', request: { ...request, maxOutputTokens: tokens }, userId: run.user_id }).holdMicro > third && tokens > MIN_OUTPUT_TOKENS) tokens = Math.floor(tokens / 2);
  request.maxOutputTokens = tokens;
  if (deps.chat.quote({ protocol: 'openai', request, userId: run.user_id }).holdMicro > third) {
    return recordToolResult(deps, state, call, { status: 'refused', error: 'a subtask may use at most a third of this run\'s limit, which is too little for it' });
  }
  const bounded = AbortSignal.any([signal, AbortSignal.timeout(SUBTASK_TIMEOUT_MS)]);
  return runModelCall(deps, state, { kind: 'subtask', model, target: call.id, request, streamText: false }, bounded, clock);
}

function subtaskRequest(model: string, instructions: string, context: string): ChatRequest {
  return {
    model,
    system: [
      {
        type: 'text',
        text: 'You are a subtask of an agent that makes media. Do what the instructions ask using only the context given, and answer in text. You cannot create media or call tools.',
      },
    ],
    messages: [{ role: 'user', content: [{ type: 'text', text: context ? `${instructions}\n\nContext:\n<<<\n${context}\n>>>` : instructions }] }],
    tools: [],
    maxOutputTokens: MAX_OUTPUT_TOKENS,
    stop: [],
    stream: true,
  };
}

function resultOf(status: string, outputJson: string | null, cost: number): ToolResult {
  const output = outputJson === null ? {} : (JSON.parse(outputJson) as { text?: string; error?: { message?: string } });
  if (status === 'completed') return { status: 'succeeded', text: output.text ?? '', costMicroUsd: String(cost) };
  if (status === 'cancelled') return { status: 'failed', error: `the subtask was stopped (it may take at most ${SUBTASK_TIMEOUT_MS / 1000} seconds)`, costMicroUsd: String(cost) };
  return { status: 'failed', error: output.error?.message ?? 'the subtask failed', costMicroUsd: String(cost) };
}
