/**
 * Structured output (SPEC rule 17): a run with an `outputSchema` does not complete with its final
 * answer. The answer is kept as the main outcome and the run is finalized first:
 *
 * - `auto`: when every field the schema asks for is a known platform field (the answer's text, the
 *   artifacts, their URLs, the run's ids and cost), the result is filled from the run, with no call;
 * - otherwise, and always with `extract`, a billed extraction call on the run's orchestrator model
 *   (JSON-schema response format where the route verified it), within the run's limit; a result that
 *   does not parse or fit gets one separately billed repair call.
 *
 * Each call is an `extract` step, so a crash or a budget pause resumes finalization without repeating
 * anything (the media are done). A failed extraction completes the run with its main outputs and
 * charges intact and `structuredResult` null.
 */
import type { RunRow, StepRow } from '../../../ports/agent-store.port.ts';
import type { StoreTransaction } from '../../../ports/store-transaction.port.ts';
import type { TxEffects } from '../events/agent-writer.ts';
import { compileOutputSchema, type OutputValidator } from '../../../domain/agent/output-schema.ts';
import type { ChatMessage, ChatRequest } from '../../../domain/chat/chat-request.types.ts';
import type { WorkQueue } from '../../../ports/work-queue.port.ts';
import { endRun, type MainOutcome } from '../runs/run-lifecycle.ts';
import type { EngineDeps } from './engine-deps.ts';
import { modelChain, type RunState } from './run-state.ts';
import { NOW, type StepOutcome } from './step-outcome.ts';

export interface StructuredState {
  status: 'pending' | 'succeeded' | 'failed';
  method?: 'deterministic' | 'model';
  /** Extraction calls made (the first and at most one repair). */
  attempts: number;
  sourceSteps: string[];
  error?: string;
}

const MAX_ATTEMPTS = 2;
const EXTRACT_MAX_TOKENS = 4_096;
/** Compiled validators by schema hash: a run's finalization steps (and runs of one schema) compile it once. */
const validators = new Map<string, OutputValidator>();
const VALIDATOR_CACHE_SIZE = 64;

function validatorFor(run: RunRow, schema: Record<string, unknown>): OutputValidator {
  const key = run.schema_hash ?? run.id;
  const known = validators.get(key);
  if (known) {
    validators.delete(key);
    validators.set(key, known);
    return known;
  }
  const compiled = compileOutputSchema(schema);
  validators.set(key, compiled);
  if (validators.size > VALIDATOR_CACHE_SIZE) validators.delete(validators.keys().next().value as string);
  return compiled;
}

export function structuredStateOf(run: RunRow): StructuredState | undefined {
  return run.structured_json === null ? undefined : (JSON.parse(run.structured_json) as StructuredState);
}

/** The run waits for its structured result: the main work is done, finalization is not. */
export function isFinalizing(run: RunRow): boolean {
  return structuredStateOf(run)?.status === 'pending';
}

/**
 * The end of a run's main work: with an output schema the answer is kept and finalization begins;
 * without one the run completes. Called in the transaction that stores the final answer.
 */
export async function completeOrFinalize(tx: StoreTransaction, fx: TxEffects, queue: WorkQueue, run: RunRow, outcome: MainOutcome): Promise<void> {
  const current = await fx.store.findRun(tx, run.id);
  if (current?.status !== 'running') return;
  if (current.output_schema_json === null) {
    await endRun(tx, fx, queue, current, { to: 'completed', outcome, from: ['running'] });
    return;
  }
  const pending: StructuredState = { status: 'pending', attempts: 0, sourceSteps: [] };
  await fx.store.updateRun(tx, run.id, current.version, { outcome_json: JSON.stringify(outcome), structured_json: JSON.stringify(pending), updated_at: fx.now });
}

export interface ExtractionCall {
  request: ChatRequest;
  model: string;
}

/**
 * The next finalization move: a deterministic result, a verdict on the extraction calls so far, or
 * the request of the next one (undefined result: make that call).
 */
export async function nextExtraction(deps: EngineDeps, state: RunState): Promise<{ done: StructuredResolution } | { call: ExtractionCall }> {
  const { run } = state;
  const schema = JSON.parse(run.output_schema_json ?? '{}') as Record<string, unknown>;
  const outcome = JSON.parse(run.outcome_json ?? '{"text":"","artifactIds":[]}') as MainOutcome;
  const extracts = state.steps.filter((s) => s.kind === 'extract');
  const validator = validatorFor(run, schema);
  if (run.structured_mode !== 'extract' && extracts.length === 0) {
    const filled = fillKnownFields(deps, state, schema, outcome);
    if (filled !== undefined && validator.validate(filled).length === 0) {
      return { done: { value: filled, state: { status: 'succeeded', method: 'deterministic', attempts: 0, sourceSteps: mediaSteps(state) } } };
    }
  }
  const finished = extracts.filter((s) => s.status === 'completed' || s.status === 'failed');
  let lastText: string | undefined;
  let lastErrors: string[] = [];
  for (const [i, step] of finished.entries()) {
    const text = step.status === 'completed' ? textOfStep(step) : undefined;
    // Only the latest call can hold the result (an earlier fitting one would have ended finalization):
    // the earlier ones are not parsed and checked again, so one move checks at most one value.
    if (i < finished.length - 1) {
      if (text !== undefined) lastText = text;
      continue;
    }
    if (text === undefined) {
      lastErrors = ['the extraction call failed'];
      continue;
    }
    const parsed = parseJson(text);
    if (!parsed.ok) {
      lastText = text;
      lastErrors = [`not JSON: ${parsed.error}`];
      continue;
    }
    const errors = validator.validate(parsed.value);
    if (errors.length === 0) {
      return { done: { value: parsed.value, state: { status: 'succeeded', method: 'model', attempts: finished.length, sourceSteps: [...mediaSteps(state), ...extracts.map((s) => s.id)] } } };
    }
    lastText = text;
    lastErrors = errors.map((e) => `${e.pointer || '/'} ${e.message}`);
  }
  if (finished.length >= MAX_ATTEMPTS) {
    return {
      done: { value: null, state: { status: 'failed', method: 'model', attempts: finished.length, sourceSteps: extracts.map((s) => s.id), error: `no valid structured result after ${finished.length} extraction calls: ${lastErrors.join('; ').slice(0, 500)}` } },
    };
  }
  const model = modelChain(run)[run.model_attempt] ?? run.orchestrator_model_id;
  const structured = (await deps.capabilities.ensure(model, 'structured_output')) === 'verified';
  return { call: { model, request: extractionRequest(deps, state, schema, outcome, model, structured, finished.length > 0 ? { text: lastText, errors: lastErrors } : undefined) } };
}

export interface StructuredResolution {
  value: unknown;
  state: StructuredState;
}

/** Stores the result (or the failure) and completes the run with its main outcome, in one transaction. */
export async function finishStructured(deps: EngineDeps, run: RunRow, resolution: StructuredResolution): Promise<StepOutcome> {
  deps.faults.at('agent.before_finalize');
  await deps.writer.run(async (tx, fx) => {
    const current = await deps.store.findRun(tx, run.id);
    if (current?.status !== 'running' || !isFinalizing(current)) return;
    const version = await deps.store.updateRun(tx, run.id, current.version, {
      structured_json: JSON.stringify(resolution.state),
      structured_result_json: resolution.value === null ? null : JSON.stringify(resolution.value),
      updated_at: fx.now,
    });
    if (version === undefined) return;
    const outcome = JSON.parse(current.outcome_json ?? '{"text":"","artifactIds":[]}') as MainOutcome;
    await endRun(tx, fx, deps.writer.queue, { ...current, version }, { to: 'completed', outcome, from: ['running'] });
  });
  return NOW;
}

function extractionRequest(deps: EngineDeps, state: RunState, schema: Record<string, unknown>, outcome: MainOutcome, model: string, structured: boolean, repair: { text: string | undefined; errors: string[] } | undefined): ChatRequest {
  const { run } = state;
  const artifacts = state.artifacts.map((a) => `- ${a.id}: ${a.file_type}, ${deps.blobs.publicUrl(a.blob_key)}${a.generation_id ? `, generation ${a.generation_id}` : ''}`);
  const steps = state.steps
    .filter((s) => s.kind === 'tool' && s.status === 'completed')
    .map((s) => `- ${s.name}: ${(s.output_json ?? '').slice(0, 600)}`);
  const facts = [
    'The run\'s answer:',
    outcome.text,
    '',
    'Artifacts:',
    ...(artifacts.length ? artifacts : ['(none)']),
    '',
    'Tool results:',
    ...(steps.length ? steps : ['(none)']),
    '',
    'JSON Schema of the result:',
    JSON.stringify(schema),
  ].join('\n');
  const messages: ChatMessage[] = [{ role: 'user', content: [{ type: 'text', text: facts }] }];
  if (repair) {
    messages.push({ role: 'assistant', content: [{ type: 'text', text: repair.text ?? '' }], toolCalls: [] });
    messages.push({ role: 'user', content: [{ type: 'text', text: `That answer does not fit the schema: ${repair.errors.join('; ').slice(0, 2000)}. Answer again with the corrected JSON only.` }] });
  }
  return {
    model,
    system: [
      {
        type: 'text',
        text: `You turn the result of an agent run into JSON that fits the given JSON Schema exactly. Use only facts from the run; where the schema allows null and the run has no value, use null. Answer with the JSON only.\nConversation ${run.conversation_id}, run ${run.id}.`,
      },
    ],
    messages,
    tools: [],
    maxOutputTokens: Math.min(EXTRACT_MAX_TOKENS, deps.config.maxOutputTokens),
    stop: [],
    stream: true,
    ...(structured ? { responseFormat: { type: 'json_schema', name: 'structured_result', schema, strict: true } } : {}),
  };
}

/**
 * Known platform fields, by name and shape: the answer (summary, text, answer, message), the
 * artifacts (artifactIds; artifacts as objects of artifactId, url, type, contentType, generationId,
 * outputIndex; urls, imageUrls, videoUrls, audioUrls; url, imageUrl, videoUrl, audioUrl), runId,
 * conversationId, costMicroUsd. Undefined when the schema asks for anything else.
 */
function fillKnownFields(deps: EngineDeps, state: RunState, schema: Record<string, unknown>, outcome: MainOutcome): Record<string, unknown> | undefined {
  const properties = schema.properties;
  if (properties === null || typeof properties !== 'object') return undefined;
  const chosen = state.artifacts.filter((a) => outcome.artifactIds.includes(a.id));
  const artifacts = chosen.map((a) => ({
    artifactId: a.id,
    url: deps.blobs.publicUrl(a.blob_key),
    type: a.file_type,
    contentType: a.content_type,
    generationId: a.generation_id,
    outputIndex: a.output_index,
  }));
  const urlsOf = (type?: string) => artifacts.filter((a) => type === undefined || a.type === type).map((a) => a.url);
  const known: Record<string, unknown> = {
    summary: outcome.text,
    text: outcome.text,
    answer: outcome.text,
    message: outcome.text,
    artifactIds: artifacts.map((a) => a.artifactId),
    urls: urlsOf(),
    imageUrls: urlsOf('image'),
    videoUrls: urlsOf('video'),
    audioUrls: urlsOf('music'),
    url: urlsOf()[0] ?? null,
    imageUrl: urlsOf('image')[0] ?? null,
    videoUrl: urlsOf('video')[0] ?? null,
    audioUrl: urlsOf('music')[0] ?? null,
    runId: state.run.id,
    conversationId: state.run.conversation_id,
    costMicroUsd: String(state.run.settled_micro),
  };
  const out: Record<string, unknown> = {};
  for (const [name, sub] of Object.entries(properties as Record<string, unknown>)) {
    if (name === 'artifacts') {
      const fields = artifactFields(sub);
      if (!fields) return undefined;
      out.artifacts = artifacts.map((a) => Object.fromEntries(fields.map((f) => [f, a[f]])));
      continue;
    }
    if (!Object.hasOwn(known, name)) return undefined;
    out[name] = known[name];
  }
  return out;
}

type ArtifactField = 'artifactId' | 'url' | 'type' | 'contentType' | 'generationId' | 'outputIndex';
const ARTIFACT_FIELDS: readonly ArtifactField[] = ['artifactId', 'url', 'type', 'contentType', 'generationId', 'outputIndex'];

/** The fields of `artifacts: [{…}]` when each is one we know. */
function artifactFields(schema: unknown): ArtifactField[] | undefined {
  if (schema === null || typeof schema !== 'object') return undefined;
  const items = (schema as { items?: unknown }).items;
  if (items === null || typeof items !== 'object') return undefined;
  const properties = (items as { properties?: unknown }).properties;
  if (properties === null || typeof properties !== 'object') return undefined;
  const names = Object.keys(properties as object);
  return names.every((n): n is ArtifactField => (ARTIFACT_FIELDS as readonly string[]).includes(n)) ? (names as ArtifactField[]) : undefined;
}

function mediaSteps(state: RunState): string[] {
  return state.steps.filter((s) => s.kind === 'tool' && s.name.startsWith('generate_') && s.status === 'completed').map((s) => s.id);
}

function textOfStep(step: StepRow): string | undefined {
  if (step.output_json === null) return undefined;
  const output = JSON.parse(step.output_json) as { text?: unknown };
  return typeof output.text === 'string' ? output.text : undefined;
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  // Models sometimes fence their JSON; the fence is not part of the answer.
  const trimmed = text.trim().replace(/^```(?:json)?\s*/i, '').replace(/\s*```$/, '');
  try {
    return { ok: true, value: JSON.parse(trimmed) };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}
