/**
 * Who may write to the SQLite database among the connections of this process: the main thread's
 * (Kysely), the chat ledger's on the main thread for holds while quiet (ledger/sqlite-chat-ledger.thread.ts) and the
 * chat ledger's writer thread (ledger/sqlite-chat-ledger.worker.ts). SQLite itself serialises writers with file locks, but a writer that finds
 * the lock taken waits in SQLite's busy handler, which sleeps the calling thread: on the main thread
 * that would stop the event loop for a millisecond or more. So the threads agree first, on one 32-bit
 * word of shared memory: the main thread waits for it asynchronously (Atomics.waitAsync), the writer
 * thread may block (Atomics.wait). Another process (the CLI) is still met by the busy handler, as before.
 */
const FREE = 0;
const HELD = 1;
/** Word 0: the lock. Word 1: how many waits of the event loop's thread are pending (it goes first). */
const LOCK = 0;
const WAITERS = 1;

export class SqliteWriteLock {
  readonly #word: Int32Array;

  /** A new lock, or the one whose shared memory another thread sent. */
  constructor(buffer: SharedArrayBuffer = new SharedArrayBuffer(8)) {
    this.#word = new Int32Array(buffer);
  }

  /** To send to another thread (postMessage, workerData). */
  get buffer(): SharedArrayBuffer {
    return this.#word.buffer as SharedArrayBuffer;
  }

  tryAcquire(): boolean {
    return Atomics.compareExchange(this.#word, LOCK, FREE, HELD) === FREE;
  }

  /** For the event loop's thread: resolves once this thread holds the lock (at once when it is free). */
  async acquire(): Promise<void> {
    if (this.tryAcquire()) return;
    Atomics.add(this.#word, WAITERS, 1);
    try {
      while (!this.tryAcquire()) {
        const wait = Atomics.waitAsync(this.#word, LOCK, HELD);
        if (wait.async) await wait.value;
      }
    } finally {
      Atomics.sub(this.#word, WAITERS, 1);
      Atomics.notify(this.#word, WAITERS);
    }
  }

  /**
   * For a thread that may block (the writer thread). It lets a waiting event loop go first: under a
   * steady load the writer thread would otherwise take the lock back before the event loop's wait
   * had even been told it was free.
   */
  acquireBlocking(): void {
    for (;;) {
      const waiting = Atomics.load(this.#word, WAITERS);
      if (waiting > 0) {
        Atomics.wait(this.#word, WAITERS, waiting, 50);
        continue;
      }
      if (this.tryAcquire()) return;
      Atomics.wait(this.#word, LOCK, HELD);
    }
  }

  release(): void {
    Atomics.store(this.#word, LOCK, FREE);
    Atomics.notify(this.#word, LOCK);
  }
}
