/**
 * Billed model analysis of attached pictures (SPEC rule 11): an image the user asks to have analysed
 * (usageIntent `analyze` or `both`) is described by a text model with verified image input before the
 * orchestrator plans, in an `analysis` step with its own hold and charge inside the run's limit, so a
 * crash or a budget pause resumes without paying twice. The orchestrator reads the description with
 * the file. Without any model whose image input was verified, the step records why and nothing is
 * charged. Sound and video have no analysis route: each such file gets a free `notice` step saying so
 * (rule 11: reported explicitly), which the run view and the result list as notices and whose
 * run.step.completed event carries the text, whichever orchestrator plans.
 */
import sharp from 'sharp';
import type { ChatRequest } from '../../../domain/chat/chat-request.types.ts';
import { newId } from '../../../domain/ids.ts';
import type { AgentAttachmentsRow as AttachmentRow } from '../../../ports/store-rows/agent.rows.ts';
import type { ContentBlock } from '../conversations/message-input.ts';
import type { EngineDeps, StepClock } from './engine-deps.ts';
import { runModelCall } from './model-step.ts';
import { modelChain, nextPosition, type RunState, targetOf } from './run-state.ts';
import { NOW, type StepOutcome } from './step-outcome.ts';
import { stepCompleted } from '../../../domain/agent/agent-events.ts';
import { runScope } from '../events/event-log.ts';

/** Vendors take pictures up to about this many pixels on the long side; larger ones cost more and help no plan. */
const MAX_SIDE = 1568;
const ANALYSIS_MAX_TOKENS = 400;

/** Files whose kind has no analysis route: they are reported, never analysed. */
const UNANALYSABLE_KINDS = new Set(['audio', 'video']);

/** What the request still needs before planning: an image to analyse, or a file to report as unanalysable. */
export type AnalysisTodo = { kind: 'analyse'; row: AttachmentRow } | { kind: 'report'; row: AttachmentRow; fileKind: string };

/** The next file of the request still to analyse or to report, or undefined when every one has its step. */
export async function nextAnalysis(deps: EngineDeps, state: RunState): Promise<AnalysisTodo | undefined> {
  const message = await deps.store.findMessage(deps.uow.direct, state.run.message_id);
  if (!message) return undefined;
  const content = JSON.parse(message.content_json) as ContentBlock[];
  const wanted = content.filter((b) => b.type === 'attachment' && (b.usageIntent === 'analyze' || b.usageIntent === 'both') && !b.maskFor);
  if (wanted.length === 0) return undefined;
  const done = new Set(state.steps.filter((s) => (s.kind === 'analysis' || s.kind === 'notice') && s.status !== 'running').map((s) => targetOf(s)));
  for (const { row, facts } of await deps.attachments.forBlocks(state.run.conversation_id, wanted)) {
    if (done.has(row.id)) continue;
    if (facts?.kind === 'image') return { kind: 'analyse', row };
    if (facts && UNANALYSABLE_KINDS.has(facts.kind)) return { kind: 'report', row, fileKind: facts.kind };
  }
  return undefined;
}

/** The notice for a file that cannot be analysed: a free step, and its event. */
export async function reportUnanalysable(deps: EngineDeps, state: RunState, attachment: AttachmentRow, fileKind: string): Promise<StepOutcome> {
  const { run } = state;
  const notice = unanalysableNotice(attachment.name, fileKind);
  await deps.writer.run(async (tx, fx) => {
    const stepId = newId('stp', fx.now);
    await deps.store.startStep(tx, { id: stepId, runId: run.id, position: nextPosition(state), kind: 'notice', name: 'analysis_unavailable', status: 'completed', input: { target: attachment.id }, output: { notice }, startedAt: fx.now });
    await fx.emit(stepCompleted(runScope(run), { stepId, kind: 'notice', name: 'analysis_unavailable', status: 'completed', notice }));
  });
  return NOW;
}

export function unanalysableNotice(name: string, fileKind: string): string {
  const what = fileKind === 'audio' ? 'sound' : fileKind;
  return `${name} was not analysed: this gateway has no model analysis of ${what} files. Nothing was charged for it; the file can still be used as a reference.`;
}

export async function analysisStep(deps: EngineDeps, state: RunState, attachment: AttachmentRow, signal: AbortSignal, clock: StepClock): Promise<StepOutcome> {
  const model = await analysisModel(deps, state);
  if (!model) return recordUnavailable(deps, state, attachment, 'no text model with verified image input is configured');
  const picture = await sharp(await deps.attachments.bytesOf(attachment))
    .rotate()
    .resize({ width: MAX_SIDE, height: MAX_SIDE, fit: 'inside', withoutEnlargement: true })
    .jpeg({ quality: 85 })
    .toBuffer();
  const request: ChatRequest = {
    model,
    system: [
      {
        type: 'text',
        text: 'Describe the picture for someone who plans image, video and music generation from it: subject, composition, colours, light, style, any text in it. At most 120 words, plain prose.',
      },
    ],
    messages: [
      {
        role: 'user',
        content: [
          { type: 'image', source: { kind: 'base64', mediaType: 'image/jpeg', data: picture.toString('base64') } },
          { type: 'text', text: `Describe the attached picture "${attachment.name}".` },
        ],
      },
    ],
    tools: [],
    maxOutputTokens: ANALYSIS_MAX_TOKENS,
    stop: [],
    stream: true,
  };
  return runModelCall(deps, state, { kind: 'analysis', model, target: attachment.id, request, streamText: false }, signal, clock);
}

/** The run's current orchestrator when its image input is verified, else the first text model whose is. */
async function analysisModel(deps: EngineDeps, state: RunState): Promise<string | undefined> {
  const current = modelChain(state.run)[state.run.model_attempt] ?? state.run.orchestrator_model_id;
  if ((await deps.capabilities.ensure(current, 'image_input')) === 'verified') return current;
  for (const model of deps.catalog.chatModels()) {
    if (model.id !== current && (await deps.capabilities.modelVerdict(model.id, 'image_input')) === 'verified') return model.id;
  }
  return undefined;
}

async function recordUnavailable(deps: EngineDeps, state: RunState, attachment: AttachmentRow, reason: string): Promise<StepOutcome> {
  const { run } = state;
  await deps.writer.run(async (tx, fx) => {
    const stepId = newId('stp', fx.now);
    await deps.store.startStep(tx, { id: stepId, runId: run.id, position: nextPosition(state), kind: 'analysis', name: 'unavailable', status: 'completed', input: { target: attachment.id }, output: { unavailable: reason }, startedAt: fx.now });
    await fx.emit(stepCompleted(runScope(run), { stepId, kind: 'analysis', status: 'completed', unavailable: reason }));
  });
  return NOW;
}
