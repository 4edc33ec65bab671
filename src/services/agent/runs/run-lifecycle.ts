/**
 * Status changes of a run, each a compare-and-set that emits exactly one event (AGENT.md "Run
 * statuses"), and what ending a run implies: its pending actions are cancelled, the conversation's
 * active-run slot is freed and the first queued follow-up (rule 2) starts, all in the same
 * transaction.
 */
import { isTerminalRun, type RunStatus, type WaitReason } from '../../../domain/agent/run-status.ts';
import { newId } from '../../../domain/ids.ts';
import type { RunChanges, RunRow } from '../../../ports/agent-store.port.ts';
import type { StoreTransaction } from '../../../ports/store-transaction.port.ts';
import type { WorkQueue } from '../../../ports/work-queue.port.ts';
import type { TxEffects } from '../events/agent-writer.ts';
import { scheduleRun } from './run-jobs.ts';
import { messageCompleted, type RunMoveDetail, runMoved } from '../../../domain/agent/agent-events.ts';
import { runScope } from '../events/event-log.ts';

export interface MainOutcome {
  text: string;
  artifactIds: string[];
}

export interface RunMove {
  to: RunStatus;
  waitReason?: WaitReason | null;
  changes?: RunChanges;
  /** Only from these statuses (default: every status the target allows). */
  from?: RunStatus[];
  /** Only if the row is still at this version. */
  version?: number;
  /** Extra fields of the event. */
  detail?: RunMoveDetail;
}

/** The compare-and-set and its one event; the new version, or undefined when another change came first. */
export async function moveRun(tx: StoreTransaction, fx: TxEffects, run: RunRow, move: RunMove): Promise<number | undefined> {
  const changes: RunChanges = { ...move.changes, wait_reason: move.waitReason ?? null, updated_at: fx.now };
  if (move.to === 'running' && run.started_at === null) changes.started_at = fx.now;
  if (isTerminalRun(move.to)) changes.finished_at = fx.now;
  const version = await fx.store.moveRun(tx, run.id, move.to, changes, { ...(move.from ? { from: move.from } : {}), ...(move.version !== undefined ? { version: move.version } : {}) });
  if (version === undefined) return undefined;
  await fx.emit(runMoved(runScope(run), { from: run.status, to: move.to, waitReason: move.waitReason ?? null, ...move.detail }));
  return version;
}

export interface RunEnding {
  to: 'completed' | 'failed' | 'cancelled';
  outcome?: MainOutcome;
  error?: { code: string; message: string };
  from?: RunStatus[];
  version?: number;
}

/**
 * Ends the run (first terminal write wins) and hands the conversation to the next queued run.
 * A completed run's answer becomes an assistant message of the conversation.
 */
export async function endRun(tx: StoreTransaction, fx: TxEffects, queue: WorkQueue, run: RunRow, ending: RunEnding): Promise<boolean> {
  const changes: RunChanges = {};
  if (ending.outcome) {
    changes.outcome_json = JSON.stringify(ending.outcome);
    changes.revision = run.revision + 1;
  }
  if (ending.error) {
    changes.error_code = ending.error.code;
    changes.error_message = ending.error.message.slice(0, 2000);
  }
  const detail: RunMoveDetail = ending.error ? { error: ending.error } : {};
  if (ending.outcome) detail.mainOutcome = ending.outcome;
  const moved = await moveRun(tx, fx, run, { to: ending.to, changes, detail, ...(ending.from ? { from: ending.from } : {}), ...(ending.version !== undefined ? { version: ending.version } : {}) });
  if (moved === undefined) return false;
  await fx.store.cancelPendingActions(tx, run.id, fx.now);
  await fx.store.cancelWaitingSteps(tx, run.id, fx.now);
  if (ending.outcome) await addAssistantMessage(tx, fx, run, ending.outcome);
  await fx.store.touchConversation(tx, run.conversation_id, fx.now);
  if (run.status !== 'queued') {
    await fx.store.releaseActiveRun(tx, run.conversation_id, run.id);
    await startNextQueued(tx, fx, queue, run.conversation_id);
  }
  return true;
}

/** Starts the conversation's first queued run if the active slot is free. */
export async function startNextQueued(tx: StoreTransaction, fx: TxEffects, queue: WorkQueue, conversationId: string): Promise<RunRow | undefined> {
  for (const next of await fx.store.listQueuedRuns(tx, conversationId)) {
    if (!(await fx.store.claimActiveRun(tx, conversationId, next.id))) return undefined;
    const version = await moveRun(tx, fx, next, { to: 'running', from: ['queued'] });
    if (version === undefined) {
      await fx.store.releaseActiveRun(tx, conversationId, next.id);
      continue;
    }
    await scheduleRun(tx, queue, fx, next.id);
    return next;
  }
  return undefined;
}

async function addAssistantMessage(tx: StoreTransaction, fx: TxEffects, run: RunRow, outcome: MainOutcome): Promise<void> {
  const id = newId('msg', fx.now);
  const content = [{ type: 'text', text: outcome.text }, ...outcome.artifactIds.map((artifactId) => ({ type: 'artifact', artifactId }))];
  await fx.store.addMessageOnce(tx, {
    id,
    conversation_id: run.conversation_id,
    run_id: run.id,
    role: 'assistant',
    kind: 'new_run',
    client_message_id: null,
    request_hash: null,
    response_json: null,
    content_json: JSON.stringify(content),
    text: outcome.text,
    created_at: fx.now,
  });
  if (outcome.text.trim() !== '') await fx.store.indexSearchDocument(tx, { docId: id, conversationId: run.conversation_id, body: outcome.text });
  await fx.emit(messageCompleted(runScope(run), { messageId: id, role: 'assistant', text: outcome.text, artifactIds: outcome.artifactIds }));
}
