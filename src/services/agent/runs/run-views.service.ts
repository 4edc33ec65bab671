/**
 * Read models of runs (GET /agent/runs/{id} and /result), artifacts and the event history. None of
 * them calls a model: the result view is what the run stored.
 */
import type { AgentEvent } from '../../../domain/agent/agent-events.ts';
import { AppError, invalidInput } from '../../../domain/errors.ts';
import type { AgentLibraryStore } from '../../../ports/agent-library-store.port.ts';
import type { AgentViews, ArtifactRow } from '../../../ports/agent-views.port.ts';
import type { BlobStore } from '../../../ports/blob-store.port.ts';
import type { AgentOperationsRow as OperationRow, AgentPendingActionsRow as PendingActionRow, AgentStepsRow as StepRow } from '../../../ports/store-rows/agent.rows.ts';
import type { UnitOfWork } from '../../../ports/unit-of-work.port.ts';
import { type AgentCaller, ownerOf } from '../agent-caller.ts';
import { presentBudget } from '../engine/run-budget.ts';
import { modelChain } from '../engine/run-state.ts';
import { type StructuredState, structuredStateOf } from '../engine/structured-output.ts';
import { eventFromRow } from '../events/event-records.ts';
import type { MainOutcome } from './run-lifecycle.ts';
import { canSteer, overridesOf, snapshotOf, steersOf } from './run-snapshot.ts';

/** How the structured result was made: deterministic or by extraction calls, their count and cost. */
function extractionOf(steps: StepRow[], state: StructuredState): Record<string, unknown> {
  const cost = steps.filter((s) => s.kind === 'extract').reduce((sum, s) => sum + Number(s.cost_micro), 0);
  return { status: state.status, method: state.method ?? null, attempts: state.attempts, costMicroUsd: String(cost), error: state.error ?? null };
}

export interface ArtifactView {
  artifactId: string;
  conversationId: string;
  runId: string;
  /** The media generation (task) the file came from; null when it has no source generation. */
  generationId: string | null;
  /** The file's position among the generation's files. */
  outputIndex: number | null;
  type: string;
  contentType: string;
  url: string;
  createdAt: string;
  expiresAt: string | null;
}

const HISTORY_PAGE = 500;

export class RunViewsService {
  readonly #views: AgentViews;
  readonly #store: AgentLibraryStore;
  readonly #uow: UnitOfWork;
  readonly #blobs: BlobStore;

  constructor(deps: { views: AgentViews; store: AgentLibraryStore; uow: UnitOfWork; blobs: BlobStore }) {
    this.#views = deps.views;
    this.#store = deps.store;
    this.#uow = deps.uow;
    this.#blobs = deps.blobs;
  }

  async run(caller: AgentCaller, runId: string): Promise<Record<string, unknown>> {
    // One snapshot: the run's totals and its operations always agree (issue 17, item 6).
    const read = await this.#views.readRunSnapshot(this.#uow.direct, ownerOf(caller), runId);
    if (!read) throw new AppError('not_found', 'run not found');
    const { run, steps, operations, actions, queuePosition } = read;
    const snapshot = snapshotOf(run);
    const now = Date.now();
    return {
      runId: run.id,
      conversationId: run.conversation_id,
      messageId: run.message_id,
      runNumber: run.run_no,
      status: run.status,
      waitReason: run.wait_reason,
      mode: run.mode,
      orchestratorModelId: modelChain(run)[run.model_attempt] ?? run.orchestrator_model_id,
      selectedModelId: run.selected_model_id,
      approvedModels: overridesOf(run),
      queuePosition,
      canSteer: canSteer(run, steps),
      pendingSteering: steersOf(run).length,
      budget: {
        ...presentBudget({ limitMicro: Number(run.limit_micro), settledMicro: Number(run.settled_micro), committedMicro: Number(run.committed_micro), budgetVersion: Number(run.budget_version) }),
        neededMicroUsd: run.budget_needed_micro === null ? null : String(run.budget_needed_micro),
      },
      costs: {
        settledMicroUsd: String(run.settled_micro),
        committedMicroUsd: String(run.committed_micro),
        operations: operations.map(presentOperation),
      },
      steps: steps.map(presentStep),
      notices: noticesOf(steps),
      pendingActions: actions.filter((a) => a.status === 'pending').map((a) => presentAction(a, now)),
      decisions: actions.filter((a) => a.status !== 'pending').map((a) => presentAction(a, now)),
      settings: snapshot.settings,
      profileId: snapshot.profileId,
      project: snapshot.project ? { projectId: snapshot.project.projectId, version: snapshot.project.version } : null,
      error: run.error_code === null ? null : { code: run.error_code, message: run.error_message },
      revision: run.revision,
      version: run.version,
      createdAt: iso(run.created_at),
      startedAt: iso(run.started_at),
      finishedAt: iso(run.finished_at),
      updatedAt: iso(run.updated_at),
    };
  }

  async result(caller: AgentCaller, runId: string): Promise<Record<string, unknown>> {
    const read = await this.#views.readResultSnapshot(this.#uow.direct, ownerOf(caller), runId);
    if (!read) throw new AppError('not_found', 'run not found');
    const { run, artifacts, steps } = read;
    const structured = structuredStateOf(run);
    // While the structured result is being made, the main outcome is not yet the run's result.
    const outcome = run.outcome_json === null || structured?.status === 'pending' ? null : (JSON.parse(run.outcome_json) as MainOutcome);
    return {
      runId: run.id,
      status: run.status,
      mainOutcome: outcome,
      revision: run.revision,
      artifacts: artifacts.map((a) => this.presentArtifact(a)),
      notices: noticesOf(steps),
      structuredResult: run.structured_result_json === null ? null : JSON.parse(run.structured_result_json),
      schemaHash: run.schema_hash,
      sourceSteps: structured?.sourceSteps ?? [],
      extraction: structured ? extractionOf(steps, structured) : run.output_schema_json === null ? null : { status: 'pending', method: null, attempts: 0, costMicroUsd: '0', error: null },
      error: run.error_code === null ? null : { code: run.error_code, message: run.error_message },
    };
  }

  async artifact(caller: AgentCaller, artifactId: string): Promise<ArtifactView> {
    const row = await this.#views.findOwnedArtifact(this.#uow.direct, ownerOf(caller), artifactId);
    if (!row || (row.expires_at !== null && Number(row.expires_at) <= Date.now())) throw new AppError('not_found', 'artifact not found (or its files have expired)');
    return this.presentArtifact(row);
  }

  /** The newest artifacts to pick from (the asset import on Projects), instead of typing an id. */
  async recentArtifacts(caller: AgentCaller, query: { limit?: string }): Promise<ArtifactView[]> {
    const limit = query.limit === undefined ? 20 : Number(query.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw invalidInput('limit must be an integer from 1 to 100', 'limit');
    const rows = await this.#views.listRecentOwnedArtifacts(this.#uow.direct, ownerOf(caller), Date.now(), limit);
    return rows.map((row) => this.presentArtifact(row));
  }

  presentArtifact(row: ArtifactRow): ArtifactView {
    return {
      artifactId: row.id,
      conversationId: row.conversation_id,
      runId: row.run_id,
      generationId: row.generation_id,
      outputIndex: row.output_index,
      type: row.file_type,
      contentType: row.content_type,
      url: this.#blobs.publicUrl(row.blob_key),
      createdAt: iso(row.created_at),
      expiresAt: iso(row.expires_at),
    };
  }

  /** JSON replay strictly after `afterSequence`; `resync` when retention removed events the cursor needs. */
  async history(caller: AgentCaller, conversationId: string, query: { afterSequence?: string; limit?: string }): Promise<{ events: AgentEvent[]; lastSequence: number; hasMore: boolean; resync: boolean }> {
    const conversation = await this.#store.findConversation(this.#uow.direct, ownerOf(caller), conversationId);
    if (!conversation) throw new AppError('not_found', 'conversation not found');
    const after = parseSequence(query.afterSequence, 'afterSequence');
    const limit = query.limit === undefined ? HISTORY_PAGE : Number(query.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > HISTORY_PAGE) throw invalidInput(`limit must be an integer from 1 to ${HISTORY_PAGE}`, 'limit');
    const oldest = await this.#views.oldestEventSequence(this.#uow.direct, conversation.id);
    const resync = oldest !== undefined && after < oldest - 1;
    const rows = await this.#views.listEventsAfter(this.#uow.direct, conversation.id, after, limit + 1);
    return { events: rows.slice(0, limit).map(eventFromRow), lastSequence: Number(conversation.event_seq), hasMore: rows.length > limit, resync };
  }

  async messages(caller: AgentCaller, conversationId: string, query: { before?: string; limit?: string }): Promise<{ items: Array<Record<string, unknown>>; nextBefore: string | null }> {
    const conversation = await this.#store.findConversation(this.#uow.direct, ownerOf(caller), conversationId);
    if (!conversation) throw new AppError('not_found', 'conversation not found');
    const limit = query.limit === undefined ? 50 : Number(query.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > 200) throw invalidInput('limit must be an integer from 1 to 200', 'limit');
    const rows = await this.#store.listMessages(this.#uow.direct, conversation.id, limit + 1, query.before);
    const page = rows.length > limit ? rows.slice(1) : rows;
    return {
      items: page.map((m) => ({ messageId: m.id, runId: m.run_id, role: m.role, kind: m.kind, content: JSON.parse(m.content_json), text: m.text, createdAt: iso(m.created_at) })),
      nextBefore: rows.length > limit ? (page[0]?.id ?? null) : null,
    };
  }
}

export function parseSequence(value: string | undefined, field: string): number {
  if (value === undefined || value === '') return 0;
  if (!/^\d{1,15}$/.test(value)) throw invalidInput(`${field} must be a sequence number (0 for the start)`, field);
  return Number(value);
}

function presentOperation(op: OperationRow): Record<string, unknown> {
  return {
    operationId: op.id,
    kind: op.kind,
    stepId: op.step_id,
    model: op.model,
    state: op.state,
    generationId: op.kind === 'generation' ? op.ref_id : null,
    chatRequestId: op.kind === 'chat' ? op.ref_id : null,
    estimateMicroUsd: String(op.estimate_micro),
    costMicroUsd: String(op.cost_micro),
    createdAt: iso(op.created_at),
    settledAt: iso(op.settled_at),
  };
}

/** What the user must be told about the run that is no step of its work (rule 11: a file that cannot be analysed). */
function noticesOf(steps: StepRow[]): string[] {
  return steps.flatMap((s) => {
    if (s.kind !== 'notice' || s.output_json === null) return [];
    const { notice } = JSON.parse(s.output_json) as { notice?: unknown };
    return typeof notice === 'string' ? [notice] : [];
  });
}

function presentStep(step: StepRow): Record<string, unknown> {
  return {
    stepId: step.id,
    position: step.position,
    kind: step.kind,
    name: step.name,
    status: step.status,
    toolCallId: step.tool_call_id,
    input: JSON.parse(step.input_json),
    output: step.output_json === null ? null : JSON.parse(step.output_json),
    costMicroUsd: String(step.cost_micro),
    startedAt: iso(step.started_at),
    finishedAt: iso(step.finished_at),
  };
}

function presentAction(action: PendingActionRow, now: number): Record<string, unknown> {
  const payload = JSON.parse(action.payload_json) as Record<string, unknown>;
  const expired = action.status === 'pending' && action.expires_at !== null && Number(action.expires_at) <= now;
  const base = {
    pendingActionId: action.id,
    kind: action.kind,
    status: expired ? 'expired' : action.status,
    version: action.version,
    createdAt: iso(action.created_at),
    expiresAt: iso(action.expires_at),
    resolvedAt: iso(action.resolved_at),
  };
  if (action.kind === 'question') return { ...base, questionId: action.id, question: payload.question, choices: payload.choices ?? [] };
  return { ...base, proposalHash: action.proposal_hash, proposal: payload };
}

function iso(ms: number): string;
function iso(ms: number | null): string | null;
function iso(ms: number | null): string | null {
  return ms === null ? null : new Date(Number(ms)).toISOString();
}
