/**
 * Run controls: stop (rule 7), the budget (rule 5, with its version), resume after a budget wait, and
 * decisions on model-change proposals (rule 6, with Idempotency-Key). Every change is a
 * compare-and-set in one transaction with its events.
 */
import type { Kysely } from 'kysely';
import { findPendingAction, resolvePendingAction } from '../../../adapters/db/repositories/agent/pending-actions.repository.ts';
import { changeRunLimit, findOwnedRun, findRun, type RunRow, updateRunAt } from '../../../adapters/db/repositories/agent/runs.repository.ts';
import { finishStep } from '../../../adapters/db/repositories/agent/steps.repository.ts';
import { findUserById } from '../../../adapters/db/repositories/users.repository.ts';
import { type Executor, executorOf, type Schema } from '../../../adapters/db/schema.ts';
import { parseRunLimit } from '../../../domain/agent/agent-settings.ts';
import { requestHash } from '../../../domain/canonical-json.ts';
import type { Catalog } from '../../../domain/catalog/catalog.ts';
import { AppError, invalidInput } from '../../../domain/errors.ts';
import { spendableMicro } from '../../../domain/money.ts';
import type { EventBus } from '../../../ports/event-bus.port.ts';
import { type AgentCaller, ownerOf } from '../agent-caller.ts';
import type { AgentWriter, TxEffects } from '../events/agent-writer.ts';
import { referenceCapacity } from '../engine/media-choice.ts';
import type { Proposal } from '../engine/proposals.ts';
import type { BudgetUpdatedData } from '../../../domain/agent/agent-events.ts';
import { emitBudget, presentBudget } from '../engine/run-budget.ts';
import { findIdempotentResponse, reserveIdempotencyKey, storeIdempotentResponse } from '../../../adapters/db/repositories/agent/idempotency.repository.ts';
import { endRun, moveRun } from './run-lifecycle.ts';
import { scheduleRun } from './run-jobs.ts';
import { overridesOf } from './run-snapshot.ts';
import { stopRun } from './run-stop.ts';
import { IDEMPOTENCY_KEY } from '../../../domain/idempotency-key.ts';

export interface DecisionResult {
  runId: string;
  pendingActionId: string;
  decision: 'accepted' | 'declined';
  status: RunRow['status'];
  modelId: string;
}


export class RunControlsService {
  readonly #db: Kysely<Schema>;
  readonly #catalog: Catalog;
  readonly #writer: AgentWriter;
  readonly #bus: EventBus;

  constructor(deps: { db: Kysely<Schema>; catalog: Catalog; writer: AgentWriter; bus: EventBus }) {
    this.#db = deps.db;
    this.#catalog = deps.catalog;
    this.#writer = deps.writer;
    this.#bus = deps.bus;
  }

  async #run(caller: AgentCaller, runId: string): Promise<RunRow> {
    const run = await findOwnedRun(this.#db, ownerOf(caller), runId);
    if (!run) throw new AppError('not_found', 'run not found');
    return run;
  }

  async stop(caller: AgentCaller, runId: string): Promise<RunRow> {
    const run = await this.#run(caller, runId);
    return this.#writer.run((tx, fx) => stopRun(tx, fx, this.#writer.queue, this.#bus, run.id));
  }

  async changeBudget(caller: AgentCaller, runId: string, body: unknown): Promise<BudgetUpdatedData> {
    if (body === null || typeof body !== 'object' || Array.isArray(body)) throw invalidInput('the body must be {maxCostMicroUsd, expectedVersion}', 'body');
    const fields = body as Record<string, unknown>;
    for (const key of Object.keys(fields)) if (key !== 'maxCostMicroUsd' && key !== 'expectedVersion') throw invalidInput(`unknown field ${key.slice(0, 80)}; allowed: maxCostMicroUsd, expectedVersion`, key.slice(0, 80));
    const limit = parseRunLimit(fields.maxCostMicroUsd, 'maxCostMicroUsd');
    const expected = fields.expectedVersion;
    if (typeof expected !== 'number' || !Number.isSafeInteger(expected) || expected < 1) throw invalidInput('expectedVersion is required: budget.version from the run view', 'expectedVersion');
    const run = await this.#run(caller, runId);
    if (['completed', 'failed', 'cancelled'].includes(run.status)) throw new AppError('conflict', `the run is ${run.status}; its budget no longer changes`);
    return this.#writer.run(async (storeTx, fx) => {
      // The writer hands out the store transaction; this service still writes through the repositories.
      const tx = executorOf(storeTx);
      const budget = await changeRunLimit(tx, run.id, expected, limit, fx.now);
      if (!budget) {
        const current = (await findRun(tx, run.id)) ?? run;
        if (Number(current.budget_version) !== expected) throw new AppError('version_conflict', `expectedVersion is stale: the budget is at version ${current.budget_version}`, { param: 'expectedVersion' });
        const used = Number(current.settled_micro) + Number(current.committed_micro);
        throw invalidInput(`maxCostMicroUsd must cover what the run has settled and committed: ${used}`, 'maxCostMicroUsd');
      }
      await emitBudget(fx, run, budget);
      return presentBudget(budget);
    });
  }

  /** A run waiting for budget goes on once what it needs fits (a larger limit, or more credit). */
  async resume(caller: AgentCaller, runId: string): Promise<RunRow> {
    const run = await this.#run(caller, runId);
    if (run.status !== 'waiting_for_budget') throw new AppError('run_not_resumable', `the run is ${run.status}; only a run waiting for budget resumes`);
    const needed = Number(run.budget_needed_micro ?? 0);
    if (run.wait_reason === 'insufficient_balance') {
      const user = await findUserById(this.#db, run.user_id);
      const spendable = user ? spendableMicro(user) : 0;
      if (spendable < needed) throw new AppError('run_not_resumable', `the next operation needs ${needed} micro-USD of balance; ${spendable} is available. Add credit, then resume.`);
    } else {
      const remaining = Number(run.limit_micro) - Number(run.settled_micro) - Number(run.committed_micro);
      if (remaining < needed) {
        throw new AppError('run_not_resumable', `the next operation needs ${needed} micro-USD of the run's limit; ${remaining} remains. Raise maxCostMicroUsd with PATCH /agent/runs/{runId}/budget, then resume.`);
      }
    }
    return this.#writer.run(async (storeTx, fx) => {
      // The writer hands out the store transaction; this service still writes through the repositories.
      const tx = executorOf(storeTx);
      const moved = await moveRun(tx, fx, run, { to: 'running', from: ['waiting_for_budget'], version: run.version, changes: { budget_needed_micro: null } });
      if (moved === undefined) throw new AppError('conflict', 'the run changed meanwhile; read it again', { retryAfter: 1 });
      await scheduleRun(tx, this.#writer.queue, fx, run.id);
      return (await findRun(tx, run.id)) ?? run;
    });
  }

  /** Rule 6 with AGENT.md's idempotency: the same key and body replay the first answer. */
  async decide(caller: AgentCaller, runId: string, idempotencyKey: string | undefined, body: unknown): Promise<DecisionResult> {
    if (idempotencyKey === undefined || !IDEMPOTENCY_KEY.test(idempotencyKey)) throw invalidInput('the Idempotency-Key header is required: 1 to 200 visible ASCII characters', 'Idempotency-Key');
    const decision = parseDecision(body);
    const run = await this.#run(caller, runId);
    const scope = `agent_decision:${caller.userId}:${run.id}`;
    const hash = requestHash(decision);
    const earlier = await findIdempotentResponse<DecisionResult>(this.#db, scope, idempotencyKey, hash);
    if (earlier) return earlier;
    return this.#writer.run(async (storeTx, fx) => {
      // The writer hands out the store transaction; this service still writes through the repositories.
      const tx = executorOf(storeTx);
      const replayed = await reserveIdempotencyKey<DecisionResult>(tx, scope, idempotencyKey, hash, fx.now);
      if (replayed) return replayed;
      const result = await this.#apply(tx, fx, run.id, decision);
      await storeIdempotentResponse(tx, scope, idempotencyKey, result);
      return result;
    });
  }

  async #apply(tx: Executor, fx: TxEffects, runId: string, decision: ParsedDecision): Promise<DecisionResult> {
    const run = await findRun(tx, runId);
    const action = await findPendingAction(tx, decision.pendingActionId);
    if (!run || !action || action.run_id !== run.id || action.kind !== 'model_change') throw new AppError('proposal_stale', 'pendingActionId names no model-change proposal of this run', { param: 'pendingActionId' });
    const expired = action.expires_at !== null && Number(action.expires_at) <= fx.now;
    if (action.status !== 'pending' || action.version !== decision.version || action.proposal_hash !== decision.proposalHash || expired || run.status !== 'waiting_for_model_approval') {
      const why = action.status !== 'pending' ? `it is ${action.status}` : expired ? 'it expired' : run.status !== 'waiting_for_model_approval' ? `the run is ${run.status}` : 'version or proposalHash do not match the current proposal';
      throw new AppError('proposal_stale', `This proposal cannot authorize anything: ${why}. Read the run again for its current pending actions.`);
    }
    const proposal = JSON.parse(action.payload_json) as Proposal;
    if (decision.accept) {
      if (!(await resolvePendingAction(tx, action.id, action.version, 'accepted', { accept: true }, fx.now))) throw new AppError('proposal_stale', 'the proposal was decided meanwhile');
      const overrides = { ...overridesOf(run), [proposal.modality]: proposal.toModelId };
      const changes = proposal.modality === 'text' ? { overrides_json: JSON.stringify(overrides), model_attempt: 0 } : { overrides_json: JSON.stringify(overrides) };
      const version = await updateRunAt(tx, run.id, run.version, { ...changes, updated_at: fx.now });
      if (version === undefined) throw new AppError('proposal_stale', 'the run changed meanwhile; read it again');
      if (action.step_id !== null) await finishStep(tx, action.step_id, ['waiting'], { status: 'completed', output_json: JSON.stringify({ decision: 'accepted', modelId: proposal.toModelId }), finished_at: fx.now });
      const current = (await findRun(tx, run.id)) as RunRow;
      await moveRun(tx, fx, current, { to: 'running', from: ['waiting_for_model_approval'], detail: { pendingActionId: action.id, decision: 'accepted', modelId: proposal.toModelId } });
      await scheduleRun(tx, this.#writer.queue, fx, run.id);
      return { runId: run.id, pendingActionId: action.id, decision: 'accepted', status: 'running', modelId: proposal.toModelId };
    }
    if (!(await resolvePendingAction(tx, action.id, action.version, 'declined', { accept: false }, fx.now))) throw new AppError('proposal_stale', 'the proposal was decided meanwhile');
    // Declining is not cancellation: the run goes on with the selected model when it can do the work.
    if (this.#canPerform(proposal)) {
      if (action.step_id !== null) {
        await finishStep(tx, action.step_id, ['waiting'], { status: 'completed', output_json: JSON.stringify({ decision: 'declined', continueWith: proposal.fromModelId }), finished_at: fx.now });
      }
      await moveRun(tx, fx, run, { to: 'running', from: ['waiting_for_model_approval'], version: run.version, detail: { pendingActionId: action.id, decision: 'declined', modelId: proposal.fromModelId } });
      await scheduleRun(tx, this.#writer.queue, fx, run.id);
      return { runId: run.id, pendingActionId: action.id, decision: 'declined', status: 'running', modelId: proposal.fromModelId };
    }
    if (action.step_id !== null) await finishStep(tx, action.step_id, ['waiting'], { status: 'completed', output_json: JSON.stringify({ decision: 'declined' }), finished_at: fx.now });
    await endRun(tx, fx, this.#writer.queue, run, {
      to: 'failed',
      from: ['waiting_for_model_approval'],
      version: run.version,
      error: { code: 'model_capability_unavailable', message: `${proposal.fromModelId} cannot perform the operation (${proposal.reason}) and the replacement ${proposal.toModelId} was declined.` },
    });
    return { runId: run.id, pendingActionId: action.id, decision: 'declined', status: 'failed', modelId: proposal.fromModelId };
  }

  /** Whether the model the run keeps after a decline can do what the proposal was for. */
  #canPerform(proposal: Proposal): boolean {
    if (proposal.origin === 'tool_route') return false;
    if (proposal.modality === 'text') return true;
    return referenceCapacity(this.#catalog, proposal.fromModelId) >= (proposal.requiredReferenceImages ?? 0);
  }
}

interface ParsedDecision {
  pendingActionId: string;
  version: number;
  proposalHash: string;
  accept: boolean;
}

function parseDecision(body: unknown): ParsedDecision {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw invalidInput('the body must be {pendingActionId, version, proposalHash, input: {accept}}', 'body');
  const fields = body as Record<string, unknown>;
  for (const key of Object.keys(fields)) if (!['pendingActionId', 'version', 'proposalHash', 'input'].includes(key)) throw invalidInput(`unknown field ${key.slice(0, 80)}`, key.slice(0, 80));
  if (typeof fields.pendingActionId !== 'string' || fields.pendingActionId === '' || fields.pendingActionId.length > 200) throw invalidInput('pendingActionId is required', 'pendingActionId');
  if (typeof fields.version !== 'number' || !Number.isSafeInteger(fields.version)) throw invalidInput('version is required: the pending action\'s version', 'version');
  if (typeof fields.proposalHash !== 'string' || fields.proposalHash.length > 200) throw invalidInput('proposalHash is required', 'proposalHash');
  const input = fields.input;
  if (input === null || typeof input !== 'object' || Array.isArray(input)) throw invalidInput('input must be {accept: true} or {accept: false}', 'input');
  const keys = Object.keys(input);
  const accept = (input as Record<string, unknown>).accept;
  if (keys.length !== 1 || typeof accept !== 'boolean') throw invalidInput('input must be {accept: true} or {accept: false}', 'input.accept');
  return { pendingActionId: fields.pendingActionId, version: fields.version, proposalHash: fields.proposalHash, accept };
}
