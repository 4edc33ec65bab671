import type { LibraryOwner } from '../../../ports/agent-library-store.port.ts';
import type { AgentViews, RunResultSnapshot, RunSnapshot } from '../../../ports/agent-views.port.ts';
import type { StoreTransaction } from '../../../ports/store-transaction.port.ts';
import { readSnapshot } from '../read-snapshot.ts';
import { findOwnedArtifact, listRecentOwnedArtifacts, listRunArtifacts } from '../repositories/agent/artifacts.repository.ts';
import { listEventsAfter, oldestEventSequence } from '../repositories/agent/events.repository.ts';
import { listRunOperations } from '../repositories/agent/operations.repository.ts';
import { findPendingAction, listRunActions } from '../repositories/agent/pending-actions.repository.ts';
import { countQueuedRuns, findOwnedRun, findRun, listQueuedRuns, listUnfinishedRuns } from '../repositories/agent/runs.repository.ts';
import { listSteps } from '../repositories/agent/steps.repository.ts';
import { findUserById } from '../repositories/users.repository.ts';
import { type Executor, executorOf } from '../schema.ts';

/** The agent's read models over Kysely, for SQLite and PostgreSQL alike. */
export class KyselyAgentViews implements AgentViews {
  readRunSnapshot(tx: StoreTransaction, owner: LibraryOwner, runId: string): Promise<RunSnapshot | undefined> {
    return onOneSnapshot(tx, async (db) => {
      const run = await findOwnedRun(db, owner, runId);
      if (!run) return undefined;
      const steps = await listSteps(db, run.id);
      const operations = await listRunOperations(db, run.id);
      const actions = await listRunActions(db, run.id);
      const queuePosition = run.status === 'queued' ? (await listQueuedRuns(db, run.conversation_id)).findIndex((r) => r.id === run.id) + 1 : null;
      return { run, steps, operations, actions, queuePosition };
    });
  }

  readResultSnapshot(tx: StoreTransaction, owner: LibraryOwner, runId: string): Promise<RunResultSnapshot | undefined> {
    return onOneSnapshot(tx, async (db) => {
      const run = await findOwnedRun(db, owner, runId);
      if (!run) return undefined;
      return { run, artifacts: await listRunArtifacts(db, run.id), steps: await listSteps(db, run.id) };
    });
  }

  findRun(tx: StoreTransaction, runId: string) {
    return findRun(executorOf(tx), runId);
  }

  findOwnedRun(tx: StoreTransaction, owner: LibraryOwner, runId: string) {
    return findOwnedRun(executorOf(tx), owner, runId);
  }

  listSteps(tx: StoreTransaction, runId: string) {
    return listSteps(executorOf(tx), runId);
  }

  findPendingAction(tx: StoreTransaction, id: string) {
    return findPendingAction(executorOf(tx), id);
  }

  countQueuedRuns(tx: StoreTransaction, conversationId: string) {
    return countQueuedRuns(executorOf(tx), conversationId);
  }

  listUnfinishedRuns(tx: StoreTransaction, conversationId: string) {
    return listUnfinishedRuns(executorOf(tx), conversationId);
  }

  findOwnedArtifact(tx: StoreTransaction, owner: LibraryOwner, artifactId: string) {
    return findOwnedArtifact(executorOf(tx), owner, artifactId);
  }

  listRecentOwnedArtifacts(tx: StoreTransaction, owner: LibraryOwner, now: number, limit: number) {
    return listRecentOwnedArtifacts(executorOf(tx), owner, now, limit);
  }

  oldestEventSequence(tx: StoreTransaction, conversationId: string) {
    return oldestEventSequence(executorOf(tx), conversationId);
  }

  listEventsAfter(tx: StoreTransaction, conversationId: string, afterSequence: number, limit: number) {
    return listEventsAfter(executorOf(tx), conversationId, afterSequence, limit);
  }

  findUser(tx: StoreTransaction, userId: string) {
    return findUserById(executorOf(tx), userId);
  }
}

/** Reads in the caller's transaction, or (outside one) in a read-only snapshot of their own (issue 17). */
function onOneSnapshot<T>(tx: StoreTransaction, reads: (db: Executor) => Promise<T>): Promise<T> {
  const db = executorOf(tx);
  if (db.isTransaction) return reads(db);
  return readSnapshot(db, reads);
}
