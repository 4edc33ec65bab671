/**
 * A run that carries out a built-in workflow (SPEC rule 14): the engine plays the recipe itself. A
 * missing required input pauses the run with a clarification question (its answer, read as the
 * field's type, is the input; an answer that does not fit is asked again, three times at most). Then
 * each node whose dependencies succeeded is dispatched as a media tool step with the id `wf:<node>`:
 * the step exists before anything is sent, so a node completed (or in flight) is never dispatched again
 * after a restart. A node whose dependency failed is skipped. When every node has ended, the run
 * completes with their artifacts.
 */
import { coerceAnswer, findWorkflow, type Workflow } from '../../../domain/agent/workflows.ts';
import { endRun } from '../runs/run-lifecycle.ts';
import type { EngineDeps } from './engine-deps.ts';
import { dispatchMedia } from './media-dispatch.ts';
import { type RunState, toolStepFor } from './run-state.ts';
import { NOW, type StepOutcome } from './step-outcome.ts';
import { completeOrFinalize } from './structured-output.ts';
import { recordToolResult } from './tool-results.ts';
import { askQuestion } from './tool-steps.ts';

const MAX_QUESTIONS_PER_FIELD = 3;

export interface WorkflowSpec {
  id: string;
  version: number;
  input: Record<string, unknown>;
}

/** The next move, or `wait` while a node's generation is in flight and nothing else can start. */
export async function workflowStep(deps: EngineDeps, state: RunState): Promise<StepOutcome | 'wait'> {
  const { run } = state;
  const spec = JSON.parse(run.workflow_json ?? '{}') as WorkflowSpec;
  const workflow = findWorkflow(spec.id, spec.version);
  if (!workflow) return failRun(deps, state, 'workflow_unavailable', `workflow ${spec.id} version ${spec.version} is not known to this gateway`);

  const input = { ...spec.input };
  for (const name of workflow.required) {
    if (input[name] !== undefined) continue;
    const asked = questionSteps(state, name);
    const field = workflow.fields[name];
    const answered = asked.map((s) => answerOf(s.output_json)).filter((a): a is string => a !== undefined);
    const fitting = field ? answered.map((a) => coerceAnswer(field, a)).find((v) => v !== undefined) : undefined;
    if (fitting !== undefined) {
      input[name] = fitting;
      continue;
    }
    if (asked.length >= MAX_QUESTIONS_PER_FIELD) return failRun(deps, state, 'workflow_input_missing', `${workflow.id} needs ${name}, and no answer fitted`);
    const question = `${workflow.name} needs ${name}: ${field?.description ?? name}.${asked.length > 0 ? ' The last answer did not fit; please answer again.' : ''}`;
    const choices = field?.enum ?? [];
    return askQuestion(deps, state, { id: `wf:input:${name}:${asked.length + 1}`, name: 'ask_clarification', arguments: '{}' }, { question, ...(choices.length ? { choices } : {}) });
  }

  const artifacts = artifactsByNode(state, workflow);
  let waiting = false;
  for (const node of workflow.nodes) {
    const step = toolStepFor(state, `wf:${node.id}`);
    if (step) {
      if (step.status === 'running' || step.status === 'waiting') waiting = true;
      continue;
    }
    const dependencies = node.dependsOn.map((d) => toolStepFor(state, `wf:${d}`));
    const failed = node.dependsOn.find((_, i) => dependencies[i] && dependencies[i]?.status !== 'running' && !succeeded(dependencies[i]?.output_json ?? null));
    if (failed) return recordToolResult(deps, state, { id: `wf:${node.id}`, name: node.tool }, { status: 'failed', error: `skipped: ${failed} did not succeed` });
    if (dependencies.some((d) => !d || d.status === 'running' || d.status === 'waiting')) continue;
    return dispatchMedia(deps, state, { id: `wf:${node.id}`, name: node.tool, args: node.args(input, artifacts) });
  }
  if (waiting) return 'wait';

  const lines = workflow.nodes.map((node) => {
    const output = toolStepFor(state, `wf:${node.id}`)?.output_json ?? null;
    const parsed = output ? (JSON.parse(output) as { status?: string; error?: string }) : {};
    return `- ${node.label}: ${parsed.status === 'succeeded' ? (artifacts[node.id] ?? []).join(', ') || 'done' : `${parsed.status ?? 'not run'}${parsed.error ? ` (${parsed.error})` : ''}`}`;
  });
  const made = workflow.nodes.filter((n) => succeeded(toolStepFor(state, `wf:${n.id}`)?.output_json ?? null)).length;
  const text = [`${workflow.name} (version ${workflow.version}): ${made} of ${workflow.nodes.length} made.`, ...lines].join('\n');
  await deps.writer.run(async (tx, fx) => {
    await completeOrFinalize(tx, fx, deps.writer.queue, run, { text, artifactIds: state.artifacts.map((a) => a.id) });
  });
  return NOW;
}

function questionSteps(state: RunState, field: string) {
  return state.steps.filter((s) => s.kind === 'tool' && s.tool_call_id?.startsWith(`wf:input:${field}:`) && s.status === 'completed');
}

function answerOf(outputJson: string | null): string | undefined {
  if (outputJson === null) return undefined;
  const output = JSON.parse(outputJson) as { answer?: unknown };
  return typeof output.answer === 'string' ? output.answer : undefined;
}

function succeeded(outputJson: string | null): boolean {
  if (outputJson === null) return false;
  return (JSON.parse(outputJson) as { status?: string }).status === 'succeeded';
}

/** The artifact ids each node made (artifacts belong to the step of the generation that made them). */
function artifactsByNode(state: RunState, workflow: Workflow): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const node of workflow.nodes) {
    const step = toolStepFor(state, `wf:${node.id}`);
    if (step) out[node.id] = state.artifacts.filter((a) => a.step_id === step.id).map((a) => a.id);
  }
  return out;
}

async function failRun(deps: EngineDeps, state: RunState, code: string, message: string): Promise<StepOutcome> {
  await deps.writer.run(async (tx, fx) => {
    const current = await deps.store.findRun(tx, state.run.id);
    if (current) await endRun(tx, fx, deps.writer.queue, current, { to: 'failed', error: { code, message }, from: ['running'] });
  });
  return NOW;
}
