/**
 * One read of the SQLite file on a thread of its own, with a deadline: for the few reads whose rows grow
 * with the traffic (the operator's route report), which would otherwise hold the event loop for as long
 * as SQLite takes. The thread opens the file read-only (WAL: it sees the last commit and blocks no
 * writer), runs the statement, answers its rows and ends; past the deadline it is stopped.
 */
import { Worker } from 'node:worker_threads';
import { AppError } from '../../../domain/errors.ts';

// Plain JavaScript: worker code given as a string is not type-stripped.
const SOURCE = `
  const { parentPort, workerData } = require('node:worker_threads');
  const { DatabaseSync } = require('node:sqlite');
  const db = new DatabaseSync(workerData.path, { readOnly: true, timeout: 5000 });
  try {
    parentPort.postMessage({ rows: db.prepare(workerData.sql).all(...workerData.parameters) });
  } catch (error) {
    parentPort.postMessage({ error: String(error && error.message ? error.message : error) });
  } finally {
    db.close();
  }
`;

type Parameter = string | number | bigint | null | Uint8Array;

export async function readOnThread<Row>(path: string, statement: string, parameters: readonly unknown[], deadlineMs: number): Promise<Row[]> {
  const values = parameters.map((p): Parameter => (typeof p === 'boolean' ? (p ? 1 : 0) : (p as Parameter)));
  const worker = new Worker(SOURCE, { eval: true, workerData: { path, sql: statement, parameters: values } });
  try {
    return await new Promise<Row[]>((resolve, reject) => {
      const timer = setTimeout(() => reject(new AppError('service_unavailable', `the report's read took longer than ${deadlineMs / 1000} s: ask for fewer days or one model`)), deadlineMs);
      worker.once('message', (answer: { rows?: Row[]; error?: string }) => {
        clearTimeout(timer);
        if (answer.error !== undefined) reject(new Error(`SQLite read failed: ${answer.error}`));
        else resolve(answer.rows ?? []);
      });
      worker.once('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
    });
  } finally {
    await worker.terminate();
  }
}
