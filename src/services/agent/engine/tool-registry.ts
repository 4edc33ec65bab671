/**
 * The run engine's half of the tool registry: each tool of AGENT_TOOLS (domain/agent/agent-tools.ts,
 * the schemas the orchestrator is offered and the local planner reads) bound to the handler that
 * carries out its calls. The map's type asks for a handler per tool name, so a tool added to the
 * registry without one does not compile; a name the model made up is answered as a refused result.
 * Calls are handled one at a time, in the order the model made them.
 */
import { type AgentToolName, isAgentToolName } from '../../../domain/agent/agent-tools.ts';
import { contextTool } from './context-tools.ts';
import type { EngineDeps, StepClock } from './engine-deps.ts';
import type { RunState } from './run-state.ts';
import type { StepOutcome } from './step-outcome.ts';
import { subtaskStep } from './subtask-step.ts';
import { recordToolResult } from './tool-results.ts';
import { askQuestion, finish, mediaTool, proposeChange, type ToolCall } from './tool-steps.ts';

/** Carries out one call of tool `N`, its arguments already a JSON object. */
export type ToolHandler<N extends AgentToolName> = (deps: EngineDeps, state: RunState, call: ToolCall & { name: N }, fields: Record<string, unknown>, signal: AbortSignal, clock: StepClock) => Promise<StepOutcome>;

export const TOOL_HANDLERS: { readonly [N in AgentToolName]: ToolHandler<N> } = {
  search_context: (deps, state, call, fields) => contextTool(deps, state, call, fields),
  read_context: (deps, state, call, fields) => contextTool(deps, state, call, fields),
  generate_image: mediaTool,
  generate_video: mediaTool,
  generate_music: mediaTool,
  ask_clarification: (deps, state, call, fields) => askQuestion(deps, state, call, fields),
  propose_model_change: (deps, state, call, fields) => proposeChange(deps, state, call, fields),
  run_subtask: (deps, state, call, fields, signal, clock) => subtaskStep(deps, state, { id: call.id, name: call.name, args: fields }, signal, clock),
  finish: (deps, state, call, fields) => finish(deps, state, call, fields),
};

function handlerOf<N extends AgentToolName>(name: N): ToolHandler<N> {
  return TOOL_HANDLERS[name];
}

export async function handleToolCall(deps: EngineDeps, state: RunState, call: ToolCall, signal: AbortSignal, clock: StepClock): Promise<StepOutcome> {
  let args: unknown;
  try {
    args = JSON.parse(call.arguments === '' ? '{}' : call.arguments);
  } catch {
    return recordToolResult(deps, state, call, { status: 'refused', error: 'the arguments are not valid JSON' });
  }
  if (args === null || typeof args !== 'object' || Array.isArray(args)) return recordToolResult(deps, state, call, { status: 'refused', error: 'the arguments must be a JSON object' });
  const { name } = call;
  if (!isAgentToolName(name)) return recordToolResult(deps, state, { ...call, args }, { status: 'refused', error: `there is no tool ${name.slice(0, 80)}` });
  return handlerOf(name)(deps, state, { ...call, name }, args as Record<string, unknown>, signal, clock);
}
