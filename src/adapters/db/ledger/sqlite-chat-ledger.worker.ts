/**
 * The chat ledger's writer thread (sqlite-chat-ledger.thread.ts starts it): its own connection to the SQLite
 * file, the ledger's statements prepared once (sqlite-chat-statements.ts), and a loop that writes every
 * message waiting for it in one transaction under the process's write lock, then answers each
 * operation. A transaction that fails as a whole (not a refusal: those are answers) is rolled back and
 * each operation is written again alone, so that one bad operation fails only itself.
 */
import { parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import { openSqliteFile } from '../sqlite/sqlite-connection.ts';
import { SqliteWriteLock } from '../sqlite/sqlite-write-lock.ts';
import type { LedgerMessage, LedgerOperation, LedgerReplies, LedgerReply, LedgerWorkerData } from './sqlite-chat-ledger.messages.ts';
import { SqliteChatStatements } from './sqlite-chat-statements.ts';

const port = parentPort;
if (!port) throw new Error('sqlite-chat-ledger.worker.ts runs as a worker thread');
const { path, lock: lockBuffer } = workerData as LedgerWorkerData;
const db = openSqliteFile(path);
// The checkpointer thread checkpoints; a commit here must not.
db.exec('pragma wal_autocheckpoint = 0');
const lock = new SqliteWriteLock(lockBuffer);
const statements = new SqliteChatStatements(db);

function apply(operation: LedgerOperation): LedgerReply {
  const value = operation.kind === 'hold' ? statements.hold(operation.request) : statements.settle(operation.request, operation.outcome, operation.note, operation.entryId);
  return { ok: true, value };
}

function rollback(): void {
  if (db.isTransaction) db.exec('rollback');
}

function alone(operation: LedgerOperation): LedgerReply {
  try {
    db.exec('begin immediate');
    const reply = apply(operation);
    db.exec('commit');
    return reply;
  } catch (error) {
    rollback();
    const errcode = (error as { errcode?: unknown } | null)?.errcode;
    return { ok: false, message: error instanceof Error ? error.message : String(error), ...(typeof errcode === 'number' ? { errcode } : {}) };
  }
}

function write(operations: LedgerOperation[]): LedgerReplies['replies'] {
  lock.acquireBlocking();
  try {
    try {
      db.exec('begin immediate');
      const replies = operations.map((operation): [number, LedgerReply] => [operation.seq, apply(operation)]);
      db.exec('commit');
      return replies;
    } catch {
      rollback();
      return operations.map((operation): [number, LedgerReply] => [operation.seq, alone(operation)]);
    }
  } finally {
    lock.release();
  }
}

port.on('message', (first: LedgerMessage) => {
  const operations: LedgerOperation[] = [];
  let stop = false;
  // Every message already waiting joins this transaction.
  for (let message: LedgerMessage | undefined = first; message !== undefined; message = receiveMessageOnPort(port)?.message as LedgerMessage | undefined) {
    if (message === 'stop') stop = true;
    else for (const operation of message.operations) operations.push(operation);
  }
  if (operations.length > 0) port.postMessage({ replies: write(operations) } satisfies LedgerReplies);
  if (stop) {
    db.close();
    port.close();
  }
});
