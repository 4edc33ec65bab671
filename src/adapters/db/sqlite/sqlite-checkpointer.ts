import { Worker } from 'node:worker_threads';

/**
 * Moves SQLite WAL checkpoints off the event loop. With automatic checkpoints, the commit that crosses
 * the threshold copies the whole WAL into the database file and fsyncs it, synchronously, on the
 * request thread — a pause of tens of milliseconds under write load. Here the writer connection has
 * `wal_autocheckpoint = 0` and a worker thread with its own connection runs PASSIVE checkpoints (they
 * never block readers or writers) whenever the WAL file has grown past `minWalBytes`; the main thread
 * keeps serving. The file's size tells how much the WAL holds because the writer connection sets a
 * `journal_size_limit` (sqlite-dialect.ts) below that threshold: a WAL that starts over is cut back,
 * so an idle server does not checkpoint (and fsync) at every tick.
 */
export class SqliteCheckpointer {
  private readonly worker: Worker;

  constructor(path: string, intervalMs = 500, minWalBytes = 4 * 1024 * 1024) {
    // Plain JavaScript: worker code given as a string is not type-stripped.
    const source = `
      const { parentPort, workerData } = require('node:worker_threads');
      const { DatabaseSync } = require('node:sqlite');
      const { statSync } = require('node:fs');
      const db = new DatabaseSync(workerData.path, { timeout: 5000 });
      const walSize = () => { try { return statSync(workerData.path + '-wal').size; } catch { return 0; } };
      const checkpoint = () => { try { db.exec('pragma wal_checkpoint(PASSIVE)'); } catch {} };
      const timer = setInterval(() => { if (walSize() >= workerData.minWalBytes) checkpoint(); }, workerData.intervalMs);
      parentPort.on('message', (message) => {
        if (message !== 'stop') return;
        clearInterval(timer);
        checkpoint();
        db.close();
        parentPort.postMessage('stopped');
      });
    `;
    this.worker = new Worker(source, { eval: true, workerData: { path, intervalMs, minWalBytes } });
    this.worker.unref();
  }

  /** A last checkpoint, then the thread ends. */
  async stop(): Promise<void> {
    await new Promise<void>((resolve) => {
      const timeout = setTimeout(resolve, 5000);
      this.worker.once('message', () => {
        clearTimeout(timeout);
        resolve();
      });
      this.worker.postMessage('stop');
    });
    await this.worker.terminate();
  }
}
