/**
 * Media tool calls: a generation through the media generation service at its normal tariff (the task
 * appears in the user's generations and statistics like any other), and its settlement when the task
 * ends. The dispatch is one transaction: the run's commitment (refused past the limit: the run waits
 * for budget before anything is sent), the tool step, the generation's debit, task and job. So a
 * crash before it leaves nothing, and after it the step exists and is never dispatched again.
 */
import type { ArtifactRow, OperationRow, RunRow } from '../../../ports/agent-store.port.ts';
import type { TasksRow as TaskRow } from '../../../ports/store-rows/media.rows.ts';
import type { MediaToolArguments, MediaToolName, MediaToolResult } from '../../../domain/agent/agent-tools.ts';
import { isAppError } from '../../../domain/errors.ts';
import { newId } from '../../../domain/ids.ts';
import { firstQueueOf } from '../../generation/create-generation.service.ts';
import type { TaskFile } from '../../generation/result-store.ts';
import { moveRun } from '../runs/run-lifecycle.ts';
import type { EngineDeps } from './engine-deps.ts';
import { chooseMedia, type MediaChoice } from './media-choice.ts';
import { closeRunOperation, commitOperation } from './run-budget.ts';
import { nextPosition, type RunState } from './run-state.ts';
import { IDLE, NOW, type StepOutcome } from './step-outcome.ts';
import type { ContentBlock } from '../conversations/message-input.ts';
import { recordToolResult, writeToolResult } from './tool-results.ts';
import { artifactCreated, stepStarted } from '../../../domain/agent/agent-events.ts';
import { runScope } from '../events/event-log.ts';

export interface ToolCallRef {
  id: string;
  name: MediaToolName;
  args: MediaToolArguments;
}

type AdmittedChoice = Extract<MediaChoice, { ok: true }>;

export async function dispatchMedia(deps: EngineDeps, state: RunState, call: ToolCallRef): Promise<StepOutcome> {
  const { run } = state;
  const masked = await withMasks(deps, run, call.name, call.args.referenceArtifactIds ?? []);
  const references = await referenceUrls(deps, run, masked.ids);
  if (typeof references === 'string') return recordToolResult(deps, state, call, refused(call.args.model ?? '', references));
  const args = masked.maskNote === undefined ? call.args : { ...call.args, prompt: `${call.args.prompt} ${masked.maskNote}` };
  const choice = chooseMedia(deps.catalog, run, call.name, args, references);
  if (!choice.ok) return recordToolResult(deps, state, call, refused(choice.model, choice.error));
  // The door of the key that started the run, for this generation, now (a key narrowed or revoked
  // mid-run refuses it): the refusal is the tool's result, in words, and nothing is debited.
  let release: () => void;
  try {
    release = await deps.door.admitRunOperation(run.api_key_id, choice.model, 'media');
  } catch (error) {
    if (isAppError(error) && error.status < 500) return recordToolResult(deps, state, call, refused(choice.model, error.message));
    throw error;
  }
  try {
    return await dispatchAdmitted(deps, state, call, choice);
  } finally {
    release();
  }
}

async function dispatchAdmitted(deps: EngineDeps, state: RunState, call: ToolCallRef, choice: AdmittedChoice): Promise<StepOutcome> {
  const { run } = state;
  const now = Date.now();
  let task: TaskRow;
  try {
    task = await deps.generations.prepare(run.user_id, { model: choice.model, input: choice.input }, now, { agentRunId: run.id, apiKeyId: run.api_key_id });
  } catch (error) {
    if (isAppError(error) && error.status < 500) return recordToolResult(deps, state, call, refused(choice.model, error.message));
    throw error;
  }
  deps.faults.at('agent.before_dispatch');
  const stepId = newId('stp', now);
  const position = nextPosition(state);
  let outcome: 'dispatched' | 'over_limit' | 'not_running' = 'dispatched';
  try {
    outcome = await deps.writer.run(async (tx, fx) => {
      const op = await commitOperation(tx, fx, run, { stepId, kind: 'generation', refId: task.id, model: choice.model, estimateMicro: task.cost_micro });
      if (!op) {
        const current = await deps.store.findRun(tx, run.id);
        return current?.status === 'running' ? 'over_limit' : 'not_running';
      }
      await deps.store.startStep(tx, {
        id: stepId,
        runId: run.id,
        position,
        kind: 'tool',
        name: call.name,
        status: 'running',
        toolCallId: call.id,
        input: { arguments: call.args, model: choice.model, input: choice.input, notes: choice.notes },
        startedAt: fx.now,
      });
      await deps.generations.writePaid(tx, task);
      fx.wake(firstQueueOf(task));
      await fx.emit(
        stepStarted(runScope(run), {
          stepId,
          position,
          kind: 'tool',
          name: call.name,
          toolCallId: call.id,
          model: choice.model,
          generationId: task.id,
          estimateMicroUsd: String(task.cost_micro),
          notes: choice.notes,
        }),
      );
      return 'dispatched';
    }, now);
  } catch (error) {
    if (isAppError(error) && error.code === 'insufficient_balance') return waitForBudget(deps, run, 'insufficient_balance', task.cost_micro);
    // The key's spend cap refused the debit (the transaction wrote nothing): refused in words, like
    // the door's refusals; a top-up would not help, so the run does not wait for budget.
    if (isAppError(error) && error.code === 'key_spend_cap_reached') return recordToolResult(deps, state, call, refused(choice.model, error.message));
    throw error;
  }
  if (outcome === 'over_limit') return waitForBudget(deps, run, 'run_limit', task.cost_micro);
  if (outcome === 'not_running') return NOW;
  deps.faults.at('agent.after_dispatch');
  return NOW;
}

/** The run waits for budget before anything is sent (AGENT.md): a larger limit, or credit, then resume. */
export async function waitForBudget(deps: EngineDeps, run: RunRow, reason: 'run_limit' | 'insufficient_balance', neededMicro: number): Promise<StepOutcome> {
  await deps.writer.run(async (tx, fx) => {
    const current = await deps.store.findRun(tx, run.id);
    if (current?.status !== 'running') return;
    const remaining = Math.max(0, Number(current.limit_micro) - Number(current.settled_micro) - Number(current.committed_micro));
    await moveRun(tx, fx, current, {
      to: 'waiting_for_budget',
      waitReason: reason,
      from: ['running'],
      changes: { budget_needed_micro: neededMicro },
      detail: { neededMicroUsd: String(neededMicro), remainingMicroUsd: String(remaining) },
    });
  });
  return IDLE;
}

/**
 * A generation of the run ended: settle its operation at what the ledger kept (the debit, or nothing
 * after the refund), turn its files into artifacts and give the tool call its result. Idempotent: the
 * operation's compare-and-set admits one settlement; artifacts are unique per file.
 */
export async function settleGeneration(deps: EngineDeps, state: RunState, op: OperationRow, task: TaskRow): Promise<void> {
  const { run } = state;
  deps.faults.at('agent.before_settle');
  await deps.writer.run(async (tx, fx) => {
    const kept = Number(task.cost_micro) - Number(task.refunded_micro);
    const succeeded = task.status === 'finished' || task.status === 'expired';
    if (!(await closeRunOperation(tx, fx, run, op, succeeded ? 'settled' : 'released', kept))) return;
    const artifacts: ArtifactRow[] = [];
    if (task.status === 'finished' && task.files_json) {
      const files = JSON.parse(task.files_json) as TaskFile[];
      for (const [index, file] of files.entries()) {
        const artifact: ArtifactRow = {
          id: newId('art', fx.now),
          user_id: run.user_id,
          storefront: run.storefront,
          conversation_id: run.conversation_id,
          run_id: run.id,
          step_id: op.step_id,
          generation_id: task.id,
          output_index: index,
          file_type: file.fileType,
          blob_key: file.blobKey,
          content_type: file.contentType,
          created_at: fx.now,
          expires_at: task.expires_at,
        };
        if (await deps.store.addArtifactOnce(tx, artifact)) artifacts.push(artifact);
      }
    }
    const result: MediaToolResult = succeeded
      ? {
          status: 'succeeded',
          model: task.model,
          generationId: task.id,
          artifacts: artifacts.map((a) => ({ artifactId: a.id, type: a.file_type, url: deps.blobs.publicUrl(a.blob_key) })),
          costMicroUsd: String(kept),
          ...(task.status === 'expired' ? { notes: ['the files have expired (3-day retention)'] } : {}),
        }
      : { status: 'failed', model: task.model, generationId: task.id, error: task.error_message ?? 'the generation failed', costMicroUsd: '0' };
    for (const artifact of artifacts) {
      await fx.emit(
        artifactCreated(runScope(run), {
          artifactId: artifact.id,
          generationId: artifact.generation_id,
          outputIndex: artifact.output_index,
          type: artifact.file_type,
          contentType: artifact.content_type,
          url: deps.blobs.publicUrl(artifact.blob_key),
          stepId: op.step_id,
        }),
      );
    }
    if (artifacts.length > 0) await deps.store.markRunRevised(tx, run.id);
    const name = state.steps.find((s) => s.id === op.step_id)?.name;
    await writeToolResult(tx, fx, run, { kind: 'running', stepId: op.step_id, name, costMicro: kept }, result);
  });
}

/**
 * A masked edit (rule 11): an image generation that references an original the request carries a
 * mask for sends the mask right after it, so the model gets both (and a model that takes fewer
 * reference images is replaced or refused, with the way out, by chooseMedia). A mask referenced on
 * its own still means an edit of its original: the original goes first, the mask after it, whatever
 * order the orchestrator named them in. The prompt says which reference is the mask of which.
 */
async function withMasks(deps: EngineDeps, run: RunRow, tool: MediaToolName, ids: string[]): Promise<{ ids: string[]; maskNote?: string }> {
  if (tool !== 'generate_image' || ids.length === 0) return { ids };
  const message = await deps.store.findMessage(deps.uow.direct, run.message_id);
  if (!message) return { ids };
  const maskOf = new Map<string, string>();
  const originalOf = new Map<string, string>();
  for (const block of JSON.parse(message.content_json) as ContentBlock[]) {
    if (block.type !== 'attachment' || !block.maskFor) continue;
    maskOf.set(block.maskFor.id, block.attachmentId);
    originalOf.set(block.attachmentId, block.maskFor.id);
  }
  const out: string[] = [];
  const add = (id: string) => {
    if (!out.includes(id)) out.push(id);
  };
  for (const id of ids) {
    const original = originalOf.get(id) ?? id;
    add(original);
    const mask = maskOf.get(original);
    if (mask) add(mask);
    else add(id);
  }
  const pairs = out.flatMap((id, i) => {
    const original = originalOf.get(id);
    return original === undefined ? [] : [`reference image ${i + 1} is a mask of reference image ${out.indexOf(original) + 1}`];
  });
  if (pairs.length === 0) return { ids: out };
  return { ids: out, maskNote: `(${pairs.join('; ')}: change only its white region and keep the black region exactly as it is.)` };
}

/** Reference artifacts and attachments must be this conversation's and available; their public URLs are what the model gets. */
async function referenceUrls(deps: EngineDeps, run: RunRow, ids: string[]): Promise<string[] | string> {
  if (ids.length === 0) return [];
  const rows = await deps.store.listConversationArtifacts(deps.uow.direct, run.conversation_id, ids);
  const now = Date.now();
  const urls: string[] = [];
  for (const id of ids) {
    if (id.startsWith('att_')) {
      // An uploaded original is a reference as it is: no analysis call (rule 11).
      const url = await deps.attachments.referenceUrl(run.conversation_id, id);
      if (url.ok) urls.push(url.url);
      else return url.error;
      continue;
    }
    const row = rows.find((r) => r.id === id);
    if (!row) return `${id} is not an artifact of this conversation`;
    if (row.expires_at !== null && Number(row.expires_at) <= now) return `${id} has expired (files are kept 3 days)`;
    if (row.file_type !== 'image') return `${id} is ${row.file_type === 'music' ? 'audio' : `a ${row.file_type}`}, not an image`;
    urls.push(deps.blobs.publicUrl(row.blob_key));
  }
  return urls;
}

function refused(model: string, error: string): MediaToolResult {
  return { status: 'refused', model, error };
}

