/**
 * POST /agent/conversations/{id}/messages: a new task (a run), a follow-up queued behind the active
 * run (rule 2), steering of the active run (rule 3) or a clarification reply (rule 4). Each is one
 * transaction: the message, the run change and their events. With a clientMessageId (rule 1), a
 * retry with the same body gets the first response again and changes nothing; another body is 409.
 */
import type { Kysely } from 'kysely';
import { claimActiveRun, type ConversationRow, findConversation, findConversationById, indexSearchDocument, nextRunNumber, touchConversation } from '../../../adapters/db/repositories/agent/conversations.repository.ts';
import { findMessageByClientId, insertMessageOnce, type MessageRow, setMessageResponse } from '../../../adapters/db/repositories/agent/messages.repository.ts';
import { findPendingAction, resolvePendingAction } from '../../../adapters/db/repositories/agent/pending-actions.repository.ts';
import { countQueuedRuns, findRun, insertRun, type RunRow, updateRunAt } from '../../../adapters/db/repositories/agent/runs.repository.ts';
import { finishStep, listSteps } from '../../../adapters/db/repositories/agent/steps.repository.ts';
import { type Executor, executorOf, type Schema } from '../../../adapters/db/schema.ts';
import type { AgentMessageKind } from '../../../adapters/db/tables/agent.tables.ts';
import type { RunStatus } from '../../../domain/agent/run-status.ts';
import { parseRunLimit } from '../../../domain/agent/agent-settings.ts';
import { projectSettingsLayer } from '../../../domain/agent/project-content.ts';
import { requestHash } from '../../../domain/canonical-json.ts';
import type { Catalog } from '../../../domain/catalog/catalog.ts';
import { AppError, invalidInput } from '../../../domain/errors.ts';
import { findUserById } from '../../../adapters/db/repositories/users.repository.ts';
import { spendableMicro } from '../../../domain/money.ts';
import { newId } from '../../../domain/ids.ts';
import { type AgentCaller, ownerOf } from '../agent-caller.ts';
import type { AgentSettingsService } from '../settings/agent-settings.service.ts';
import type { AgentWriter, TxEffects } from '../events/agent-writer.ts';
import type { AttachmentsService } from '../attachments/attachments.service.ts';
import { parseMessage, type ParsedMessage } from './message-input.ts';
import type { ProjectsService } from '../projects/projects.service.ts';
import { moveRun } from '../runs/run-lifecycle.ts';
import { scheduleRun } from '../runs/run-jobs.ts';
import { canSteer, type RunSnapshot, steersOf } from '../runs/run-snapshot.ts';
import { messageCreated, runCreated } from '../../../domain/agent/agent-events.ts';

export interface MessageAccepted {
  conversationId: string;
  messageId: string;
  runId: string;
  status: RunStatus;
  /** For a queued follow-up: 1 = next to start. */
  queuePosition?: number;
}

/** Rule 2 / Limits: follow-ups waiting behind the active run. */
export const MAX_QUEUED_FOLLOWUPS = 20;

/**
 * Rule 13: the run's source boundary, taken when it is created: the conversation's references as they
 * are now, each readable up to this moment, so messages written later never enter the run's input.
 */
async function captureContext(db: Executor, conversation: ConversationRow, now: number): Promise<string | null> {
  const refs = JSON.parse(conversation.context_json) as Array<{ targetId: string }>;
  if (refs.length === 0) return null;
  const sources: Array<{ conversationId: string; title: string | null; until: number }> = [];
  for (const ref of refs) {
    const source = await findConversationById(db, ref.targetId);
    if (source && source.deleted_at === null && source.user_id === conversation.user_id && source.storefront === conversation.storefront) sources.push({ conversationId: source.id, title: source.title, until: now });
  }
  return sources.length ? JSON.stringify(sources) : null;
}

export class MessagesService {
  readonly #db: Kysely<Schema>;
  readonly #catalog: Catalog;
  readonly #writer: AgentWriter;
  readonly #settings: AgentSettingsService;
  readonly #attachments: AttachmentsService;
  readonly #projects: ProjectsService;

  constructor(deps: { db: Kysely<Schema>; catalog: Catalog; writer: AgentWriter; settings: AgentSettingsService; attachments: AttachmentsService; projects: ProjectsService }) {
    this.#attachments = deps.attachments;
    this.#projects = deps.projects;
    this.#db = deps.db;
    this.#catalog = deps.catalog;
    this.#writer = deps.writer;
    this.#settings = deps.settings;
  }

  async accept(caller: AgentCaller, conversationId: string, body: unknown): Promise<MessageAccepted> {
    const message = parseMessage(body);
    const conversation = await findConversation(this.#db, ownerOf(caller), conversationId);
    if (!conversation) throw new AppError('not_found', 'conversation not found');
    const hash = requestHash(message.canonical);
    if (message.clientMessageId !== undefined) {
      const earlier = await findMessageByClientId(this.#db, conversation.id, message.clientMessageId);
      if (earlier) return replay(earlier, hash);
    }
    // Cheap refusals first, from the row just read; the transaction checks again. Only then the
    // files, whose checks decode pictures.
    if (message.replyToRunId === undefined) refuseEarly(caller, conversation, message);
    // A new run from an empty balance could only wait for budget, where a new limit or resume cannot
    // help: refused up front, as a paid request of the playground is (402, nothing written).
    if (message.replyToRunId === undefined && message.deliveryMode !== 'steer') await this.#refuseEmptyBalance(caller);
    await this.#attachments.checkForMessage(conversation.id, message.content);
    if (message.replyToRunId !== undefined) return this.#reply(caller, conversation.id, message, hash);
    if (message.deliveryMode === 'steer') return this.#steer(conversation.id, conversation.active_run_id, message, hash);
    // Rule 9: the project's model defaults over the user's, the conversation's overrides over both;
    // the run keeps the project version it starts with, whatever changes later.
    const project = await this.#projects.forRun(ownerOf(caller), conversation.project_id);
    const settings = await this.#settings.effective(caller, project ? projectSettingsLayer(project.content) : {}, JSON.parse(conversation.settings_json));
    const limit = message.maxCostMicro ?? parseRunLimit(settings.defaultMaxCostMicroUsd, 'settings.defaultMaxCostMicroUsd');
    const selected = conversation.mode === 'manual' ? conversation.selected_model_id : null;
    const snapshot: RunSnapshot = { settings, mode: conversation.mode, selectedModelId: selected, profileId: conversation.profile_id };
    if (project) {
      const { name, instructions, brand } = project.content;
      snapshot.project = { projectId: project.projectId, version: project.version, name, instructions, brand };
    }
    const orchestrator = selected !== null && this.#catalog.chat(selected) ? selected : settings.orchestratorModelId;

    return this.#writer.run(async (storeTx, fx) => {
      // The writer hands out the store transaction; this service still writes through the repositories.
      const tx = executorOf(storeTx);
      const messageId = newId('msg', fx.now);
      const runId = newId('run', fx.now);
      const followup = message.deliveryMode === 'followup';
      const kind: AgentMessageKind = followup ? 'followup' : 'new_run';
      const inserted = await this.#insertMessage(tx, fx, conversation.id, messageId, runId, kind, message, hash);
      if (inserted !== true) return inserted;
      let status: RunStatus;
      if (await claimActiveRun(tx, conversation.id, runId)) status = 'running';
      else if (followup) {
        if ((await countQueuedRuns(tx, conversation.id)) >= MAX_QUEUED_FOLLOWUPS) {
          throw new AppError('followup_queue_full', `At most ${MAX_QUEUED_FOLLOWUPS} follow-ups may wait behind the active run; wait for one to start.`);
        }
        status = 'queued';
      } else {
        throw busy();
      }
      const runNo = await nextRunNumber(tx, conversation.id);
      const run: RunRow = {
        id: runId,
        conversation_id: conversation.id,
        user_id: caller.userId,
        storefront: caller.storefront.id,
        api_key_id: caller.keyId,
        message_id: messageId,
        run_no: runNo,
        status,
        wait_reason: null,
        version: 1,
        wake_seq: 0,
        mode: conversation.mode,
        orchestrator_model_id: orchestrator,
        model_attempt: 0,
        selected_model_id: selected,
        settings_json: JSON.stringify(snapshot),
        overrides_json: '{}',
        limit_micro: limit,
        settled_micro: 0,
        committed_micro: 0,
        budget_version: 1,
        budget_needed_micro: null,
        steer_json: '[]',
        step_count: 0,
        outcome_json: null,
        revision: 0,
        output_schema_json: message.output ? JSON.stringify(message.output.schema) : null,
        structured_mode: message.output?.mode ?? null,
        schema_hash: message.output?.hash ?? null,
        structured_json: null,
        structured_result_json: null,
        context_json: await captureContext(tx, conversation, fx.now),
        workflow_json: message.workflow ? JSON.stringify(message.workflow) : null,
        error_code: null,
        error_message: null,
        stop_requested_at: null,
        created_at: fx.now,
        started_at: status === 'running' ? fx.now : null,
        finished_at: null,
        updated_at: fx.now,
      };
      await insertRun(tx, run);
      const queuePosition = status === 'queued' ? await countQueuedRuns(tx, conversation.id) : undefined;
      await fx.emit(
        runCreated(
          { conversationId: conversation.id, runId },
          { status, messageId, maxCostMicroUsd: String(limit), orchestratorModelId: orchestrator, mode: conversation.mode, ...(queuePosition ? { queuePosition } : {}) },
        ),
      );
      if (status === 'running') await scheduleRun(tx, this.#writer.queue, fx, runId);
      const accepted: MessageAccepted = { conversationId: conversation.id, messageId, runId, status, ...(queuePosition ? { queuePosition } : {}) };
      await this.#finish(tx, messageId, accepted);
      return accepted;
    });
  }

  /** Rule 4: the answer to the run's pending question; the run goes on with its own limit. */
  async #reply(caller: AgentCaller, conversationId: string, message: ParsedMessage, hash: string): Promise<MessageAccepted> {
    const runId = message.replyToRunId as string;
    const questionId = message.questionId as string;
    return this.#writer.run(async (storeTx, fx) => {
      // The writer hands out the store transaction; this service still writes through the repositories.
      const tx = executorOf(storeTx);
      const run = await findRun(tx, runId);
      if (!run || run.conversation_id !== conversationId || run.user_id !== caller.userId) throw new AppError('not_found', 'replyToRunId: run not found in this conversation', { param: 'replyToRunId' });
      if (message.maxCostMicro !== undefined && message.maxCostMicro !== Number(run.limit_micro)) {
        throw invalidInput('a clarification reply keeps the run\'s maxCostMicroUsd (rule 4); change it with PATCH /agent/runs/{runId}/budget', 'maxCostMicroUsd');
      }
      const action = await findPendingAction(tx, questionId);
      if (!action || action.run_id !== run.id || action.kind !== 'question') throw new AppError('question_not_pending', 'questionId names no question of this run', { param: 'questionId' });
      if (action.status !== 'pending' || run.status !== 'waiting_for_clarification') {
        throw new AppError('question_not_pending', `the question is ${action.status} and the run is ${run.status}: there is nothing to answer`, { param: 'questionId' });
      }
      const messageId = newId('msg', fx.now);
      const inserted = await this.#insertMessage(tx, fx, conversationId, messageId, run.id, 'reply', message, hash);
      if (inserted !== true) return inserted;
      const answer = { answer: message.text, messageId };
      if (!(await resolvePendingAction(tx, action.id, action.version, 'answered', answer, fx.now))) throw new AppError('question_not_pending', 'the question was answered or withdrawn meanwhile', { param: 'questionId' });
      if (action.step_id !== null) await finishStep(tx, action.step_id, ['waiting'], { status: 'completed', output_json: JSON.stringify(answer), finished_at: fx.now });
      const version = await moveRun(tx, fx, run, { to: 'running', from: ['waiting_for_clarification'], version: run.version, detail: { questionId } });
      if (version === undefined) throw new AppError('question_not_pending', 'the run changed meanwhile; read it again', { param: 'replyToRunId' });
      await scheduleRun(tx, this.#writer.queue, fx, run.id);
      const accepted: MessageAccepted = { conversationId, messageId, runId: run.id, status: 'running' };
      await this.#finish(tx, messageId, accepted);
      return accepted;
    });
  }

  /** Rule 3: text for the active automatic run, applied at its next step boundary. */
  async #refuseEmptyBalance(caller: AgentCaller): Promise<void> {
    const user = await findUserById(this.#db, caller.userId);
    if (user && spendableMicro(user) > 0) return;
    throw new AppError('insufficient_balance', 'Your balance is $0.00: add funds before the agent can start a run. Nothing was sent.');
  }

  async #steer(conversationId: string, activeRunId: string | null, message: ParsedMessage, hash: string): Promise<MessageAccepted> {
    if (activeRunId === null) throw nothingToSteer();
    return this.#writer.run(async (storeTx, fx) => {
      // The writer hands out the store transaction; this service still writes through the repositories.
      const tx = executorOf(storeTx);
      const run = await findRun(tx, activeRunId);
      if (!run || !canSteer(run, await listSteps(tx, run.id))) {
        throw new AppError('steer_not_allowed', 'The active run cannot be steered now (canSteer is false in its run view); send a followup instead, or try again at its next step.');
      }
      const messageId = newId('msg', fx.now);
      const inserted = await this.#insertMessage(tx, fx, conversationId, messageId, run.id, 'steer', message, hash);
      if (inserted !== true) return inserted;
      const steers = [...steersOf(run), { messageId, text: message.text }];
      if ((await updateRunAt(tx, run.id, run.version, { steer_json: JSON.stringify(steers), updated_at: fx.now })) === undefined) {
        throw new AppError('steer_not_allowed', 'The run changed meanwhile; try again.', { retryAfter: 1 });
      }
      if (run.status === 'running') await scheduleRun(tx, this.#writer.queue, fx, run.id);
      const accepted: MessageAccepted = { conversationId, messageId, runId: run.id, status: run.status };
      await this.#finish(tx, messageId, accepted);
      return accepted;
    });
  }

  /**
   * The message row (first write of the transaction) and its event. When the clientMessageId was
   * taken meanwhile (a concurrent retry), returns that request's answer instead of `true`.
   */
  async #insertMessage(tx: Executor, fx: TxEffects, conversationId: string, id: string, runId: string, kind: AgentMessageKind, message: ParsedMessage, hash: string): Promise<true | MessageAccepted> {
    const inserted = await insertMessageOnce(tx, {
      id,
      conversation_id: conversationId,
      run_id: runId,
      role: 'user',
      kind,
      client_message_id: message.clientMessageId ?? null,
      request_hash: hash,
      response_json: null,
      content_json: JSON.stringify(message.content),
      text: message.text,
      created_at: fx.now,
    });
    if (!inserted) {
      const earlier = await findMessageByClientId(tx, conversationId, message.clientMessageId ?? '');
      if (!earlier) throw new AppError('idempotency_in_progress', 'a request with this clientMessageId is in progress', { retryAfter: 1 });
      return replay(earlier, hash);
    }
    await indexSearchDocument(tx, { docId: id, conversationId, body: message.text });
    await touchConversation(tx, conversationId, fx.now);
    await fx.emit(messageCreated({ conversationId, runId }, { messageId: id, role: 'user', kind, text: message.text }));
    return true;
  }

  async #finish(tx: Executor, messageId: string, accepted: MessageAccepted): Promise<void> {
    await setMessageResponse(tx, messageId, accepted);
  }
}

/** What the conversation row already answers: runs disabled, a busy conversation, nothing to steer. */
function refuseEarly(caller: AgentCaller, conversation: ConversationRow, message: ParsedMessage): void {
  if (message.deliveryMode === 'steer') {
    if (conversation.active_run_id === null) throw nothingToSteer();
    return;
  }
  if (!caller.storefront.agentRuns) {
    throw new AppError('agent_runs_disabled', 'New agent runs are disabled on this storefront; history, downloads and run controls stay available.');
  }
  if (message.deliveryMode === undefined && conversation.active_run_id !== null) throw busy();
}

function busy(): AppError {
  return new AppError('conversation_busy', 'This conversation has an active run: send the message with deliveryMode followup (queued) or steer, or stop the run.');
}

function nothingToSteer(): AppError {
  return new AppError('steer_not_allowed', 'There is no active run to steer; send the message without deliveryMode to start one.');
}

function replay(earlier: MessageRow, hash: string): MessageAccepted {
  if (earlier.request_hash !== hash) throw new AppError('idempotency_key_reused', 'this clientMessageId was used with a different message body', { param: 'clientMessageId' });
  if (earlier.response_json === null) throw new AppError('idempotency_in_progress', 'a request with this clientMessageId is in progress', { retryAfter: 1 });
  return JSON.parse(earlier.response_json) as MessageAccepted;
}
