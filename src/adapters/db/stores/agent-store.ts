/**
 * The agent's store over Kysely, for SQLite and PostgreSQL alike: each method is one of the agent
 * repositories' statements (or the few that must go together, as an operation and the run's money),
 * on the executor behind the port's transaction.
 */
import type { StepStatus } from '../../../domain/agent/step-status.ts';
import type { AgentStore, NewStep, OperationRow, RunBudget, StepEnd } from '../../../ports/agent-store.port.ts';
import type { StoreTransaction } from '../../../ports/store-transaction.port.ts';
import { isPostgres } from '../dialect-of.ts';
import { findChatCharge, findChatHold } from '../ledger/chat-holds.repository.ts';
import { listLiveAgentWebhooks } from '../repositories/agent/agent-webhooks.repository.ts';
import { insertArtifactOnce, listConversationArtifacts, listRecentConversationArtifacts, listRunArtifacts } from '../repositories/agent/artifacts.repository.ts';
import {
  claimActiveRun,
  findConversationById,
  indexSearchDocument,
  readContextMessage,
  releaseActiveRun,
  searchContext,
  setGeneratedTitle,
  touchConversation,
} from '../repositories/agent/conversations.repository.ts';
import { insertEvent, lastEventSequence, lastEventSequences, listEventsAfter, takeEventSequence } from '../repositories/agent/events.repository.ts';
import { findMessage, insertMessageOnce } from '../repositories/agent/messages.repository.ts';
import { closeOperation, findOperationByRef, insertOperation, listRunOperations } from '../repositories/agent/operations.repository.ts';
import { cancelPendingActions, insertPendingAction, listRunActions } from '../repositories/agent/pending-actions.repository.ts';
import { bumpRunRevision, bumpRunWake, commitToRun, findRun, listEarlierRuns, listQueuedRuns, noWakeSince, settleOnRun, transitionRun, updateRunAt } from '../repositories/agent/runs.repository.ts';
import { cancelWaitingSteps, findStepsByIds, finishStep, insertStep, listSteps } from '../repositories/agent/steps.repository.ts';
import { findTask } from '../repositories/tasks.repository.ts';
import { executorOf } from '../schema.ts';

const OPEN_STEP: ReadonlySet<StepStatus> = new Set(['running', 'waiting']);

export class KyselyAgentStore implements AgentStore {
  findRun: AgentStore['findRun'] = (tx, id) => findRun(executorOf(tx), id);
  moveRun: AgentStore['moveRun'] = (tx, id, to, changes, guard = {}) => transitionRun(executorOf(tx), id, to, changes, guard);
  updateRun: AgentStore['updateRun'] = (tx, id, version, changes) => updateRunAt(executorOf(tx), id, version, changes);
  listQueuedRuns: AgentStore['listQueuedRuns'] = (tx, conversationId) => listQueuedRuns(executorOf(tx), conversationId);
  listEarlierRuns: AgentStore['listEarlierRuns'] = (tx, conversationId, runNo, limit) => listEarlierRuns(executorOf(tx), conversationId, runNo, limit);
  wakeRun: AgentStore['wakeRun'] = (tx, id) => bumpRunWake(executorOf(tx), id);
  noWakeSince: AgentStore['noWakeSince'] = (tx, id, wakeSeq) => noWakeSince(executorOf(tx), id, wakeSeq);
  markRunRevised: AgentStore['markRunRevised'] = (tx, id) => bumpRunRevision(executorOf(tx), id);

  async startStep(tx: StoreTransaction, step: NewStep): Promise<void> {
    const ended = !OPEN_STEP.has(step.status);
    await insertStep(executorOf(tx), {
      id: step.id,
      run_id: step.runId,
      position: step.position,
      kind: step.kind,
      name: step.name,
      status: step.status,
      tool_call_id: step.toolCallId ?? null,
      input_json: JSON.stringify(step.input),
      output_json: step.output === undefined ? null : JSON.stringify(step.output),
      cost_micro: step.costMicro ?? 0,
      started_at: step.startedAt,
      finished_at: step.finishedAt !== undefined ? step.finishedAt : ended ? step.startedAt : null,
    });
  }

  finishStep(tx: StoreTransaction, stepId: string, from: readonly StepStatus[], end: StepEnd): Promise<boolean> {
    return finishStep(executorOf(tx), stepId, from, {
      status: end.status,
      ...(end.output !== undefined ? { output_json: JSON.stringify(end.output) } : {}),
      ...(end.costMicro !== undefined ? { cost_micro: end.costMicro } : {}),
      finished_at: end.finishedAt,
    });
  }

  listSteps: AgentStore['listSteps'] = (tx, runId) => listSteps(executorOf(tx), runId);
  findSteps: AgentStore['findSteps'] = (tx, ids) => findStepsByIds(executorOf(tx), ids);
  cancelWaitingSteps: AgentStore['cancelWaitingSteps'] = (tx, runId, now) => cancelWaitingSteps(executorOf(tx), runId, now);

  async commitOperation(tx: StoreTransaction, op: OperationRow): Promise<RunBudget | undefined> {
    const db = executorOf(tx);
    const budget = await commitToRun(db, op.run_id, Number(op.estimate_micro), op.created_at);
    if (!budget) return undefined;
    await insertOperation(db, op);
    return budget;
  }

  async closeOperation(tx: StoreTransaction, op: OperationRow, state: 'settled' | 'released', costMicro: number, now: number): Promise<RunBudget | undefined> {
    const db = executorOf(tx);
    if (!(await closeOperation(db, op.id, state, costMicro, now))) return undefined;
    return settleOnRun(db, op.run_id, Number(op.estimate_micro), costMicro, now);
  }

  listRunOperations: AgentStore['listRunOperations'] = (tx, runId) => listRunOperations(executorOf(tx), runId);
  findOperationByRef: AgentStore['findOperationByRef'] = (tx, kind, refId) => findOperationByRef(executorOf(tx), kind, refId);

  addPendingAction: AgentStore['addPendingAction'] = (tx, action) => insertPendingAction(executorOf(tx), action);
  listRunActions: AgentStore['listRunActions'] = (tx, runId) => listRunActions(executorOf(tx), runId);
  cancelPendingActions: AgentStore['cancelPendingActions'] = (tx, runId, now) => cancelPendingActions(executorOf(tx), runId, now);

  addArtifactOnce: AgentStore['addArtifactOnce'] = (tx, artifact) => insertArtifactOnce(executorOf(tx), artifact);
  listRunArtifacts: AgentStore['listRunArtifacts'] = (tx, runId) => listRunArtifacts(executorOf(tx), runId);
  listConversationArtifacts: AgentStore['listConversationArtifacts'] = (tx, conversationId, ids) => listConversationArtifacts(executorOf(tx), conversationId, ids);
  listRecentConversationArtifacts: AgentStore['listRecentConversationArtifacts'] = (tx, conversationId, limit) => listRecentConversationArtifacts(executorOf(tx), conversationId, limit);

  appendEvent: AgentStore['appendEvent'] = async (tx, event) => {
    const db = executorOf(tx);
    const grant = await takeEventSequence(db, event.conversation_id);
    if (!grant) return undefined;
    await insertEvent(db, { ...event, sequence: grant.sequence });
    return grant;
  };

  listEventWebhooks: AgentStore['listEventWebhooks'] = (tx, userId, storefront) => listLiveAgentWebhooks(executorOf(tx), userId, storefront);
  listEventsAfter: AgentStore['listEventsAfter'] = (tx, conversationId, afterSequence, limit) => listEventsAfter(executorOf(tx), conversationId, afterSequence, limit);
  lastEventSequence: AgentStore['lastEventSequence'] = (tx, conversationId) => lastEventSequence(executorOf(tx), conversationId);
  lastEventSequences: AgentStore['lastEventSequences'] = (tx, conversationIds) => lastEventSequences(executorOf(tx), conversationIds);

  findConversation: AgentStore['findConversation'] = (tx, id) => findConversationById(executorOf(tx), id);
  setGeneratedTitle: AgentStore['setGeneratedTitle'] = (tx, conversationId, title) => setGeneratedTitle(executorOf(tx), conversationId, title);
  touchConversation: AgentStore['touchConversation'] = (tx, conversationId, now) => touchConversation(executorOf(tx), conversationId, now);
  claimActiveRun: AgentStore['claimActiveRun'] = (tx, conversationId, runId) => claimActiveRun(executorOf(tx), conversationId, runId);
  releaseActiveRun: AgentStore['releaseActiveRun'] = (tx, conversationId, runId) => releaseActiveRun(executorOf(tx), conversationId, runId);
  findMessage: AgentStore['findMessage'] = (tx, id) => findMessage(executorOf(tx), id);
  addMessageOnce: AgentStore['addMessageOnce'] = (tx, message) => insertMessageOnce(executorOf(tx), message);
  indexSearchDocument: AgentStore['indexSearchDocument'] = (tx, doc) => indexSearchDocument(executorOf(tx), doc);

  searchContext: AgentStore['searchContext'] = async (tx, bounds, expression, limit) => {
    const db = executorOf(tx);
    const query = expression(isPostgres(db));
    if (query === undefined) return [];
    return searchContext(db, bounds.owner, bounds.sources, query, limit);
  };

  readContextMessage: AgentStore['readContextMessage'] = (tx, bounds, messageId) => readContextMessage(executorOf(tx), bounds.owner, bounds.sources, messageId);

  findGeneration: AgentStore['findGeneration'] = (tx, taskId) => findTask(executorOf(tx), taskId);
  findCallCharge: AgentStore['findCallCharge'] = (tx, chatRequestId) => findChatCharge(executorOf(tx), chatRequestId);
  findCallHold: AgentStore['findCallHold'] = (tx, chatRequestId) => findChatHold(executorOf(tx), chatRequestId);
}
