/**
 * A small pool of worker threads for CPU work on user input (issue 17, item 12). Each task runs on
 * one thread with a deadline and a memory limit: a task past its deadline has its thread stopped and
 * replaced, and a thread past its V8 heap limit (worker `resourceLimits`) dies and is replaced; either
 * way the task fails with that reason and the pool goes on. Waiting tasks form a bounded queue (by
 * count and by the bytes they hold); past it a task is refused at once as `busy`.
 *
 * The heap limit covers what V8 allocates; Buffers live outside it, so the tasks bound their own
 * (the PDF reader caps what it inflates). Threads start on first use and stop after a while idle;
 * an idle thread does not keep the process alive.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import { type TaskCatalog, TaskError, type TaskFailure, type TaskOptions, type TaskPool } from '../../ports/cpu-pool.port.ts';
import type { TaskMessage, TaskReply } from './serve-tasks.ts';

export interface ThreadPoolOptions {
  /** The worker script; it calls serveTasks with the catalog's implementations. */
  script: URL;
  /** Default deadline of each kind of task, ms. */
  deadlineMs: (kind: string) => number;
  /** Threads at most (default: the cores but one, between 1 and 4). */
  threads?: number;
  /** Tasks waiting for a thread at most (default 64). */
  maxQueued?: number;
  /** Bytes of input waiting at most (default 256 MiB); a single larger task is still taken when nothing waits. */
  maxQueuedBytes?: number;
  /** V8 old-generation heap of each thread, MiB (default 256). */
  heapMb?: number;
  /** A thread idle this long is stopped (default 30 s). */
  idleMs?: number;
  logger?: Logger;
}

interface Task {
  id: number;
  kind: string;
  input: unknown;
  transfer: ArrayBuffer[];
  deadlineMs: number;
  bytes: number;
  resolve: (value: unknown) => void;
  reject: (error: TaskError) => void;
}

interface Thread {
  worker: Worker;
  task: Task | undefined;
  deadline: NodeJS.Timeout | undefined;
  idle: NodeJS.Timeout | undefined;
}

export function defaultThreadCount(): number {
  return Math.max(1, Math.min(4, availableParallelism() - 1));
}

export class ThreadPool<C extends TaskCatalog> implements TaskPool<C> {
  readonly #options: Required<Omit<ThreadPoolOptions, 'logger'>> & { logger: Logger | undefined };
  readonly #threads = new Set<Thread>();
  readonly #queue: Task[] = [];
  #queuedBytes = 0;
  readonly #answeredByKind = new Map<string, number>();
  #nextId = 1;
  #closed = false;

  constructor(options: ThreadPoolOptions) {
    this.#options = {
      threads: defaultThreadCount(),
      maxQueued: 64,
      maxQueuedBytes: 256 * 1024 * 1024,
      heapMb: 256,
      idleMs: 30_000,
      ...options,
      logger: options.logger,
    };
  }

  /** Threads running now (for tests and metrics). */
  get threadCount(): number {
    return this.#threads.size;
  }

  answered(kind: keyof C & string): number {
    return this.#answeredByKind.get(kind) ?? 0;
  }

  run<K extends keyof C & string>(kind: K, input: C[K]['input'], options: TaskOptions = {}): Promise<C[K]['output']> {
    if (this.#closed) return Promise.reject(new TaskError('closed', kind, 'the CPU pool is closed'));
    const bytes = bytesOf(input);
    const waiting = this.#queue.length;
    if (waiting >= this.#options.maxQueued || (waiting > 0 && this.#queuedBytes + bytes > this.#options.maxQueuedBytes)) {
      return Promise.reject(new TaskError('busy', kind, `the CPU pool is busy (${waiting} tasks waiting)`));
    }
    return new Promise((resolve, reject) => {
      this.#queue.push({ id: this.#nextId++, kind, input, transfer: options.transfer ?? [], deadlineMs: options.deadlineMs ?? this.#options.deadlineMs(kind), bytes, resolve, reject });
      this.#queuedBytes += bytes;
      this.#pump();
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const task of this.#queue.splice(0)) task.reject(new TaskError('closed', task.kind, 'the CPU pool closed'));
    this.#queuedBytes = 0;
    const stopping: Array<Promise<number>> = [];
    for (const thread of [...this.#threads]) {
      this.#forget(thread);
      thread.task?.reject(new TaskError('closed', thread.task.kind, 'the CPU pool closed'));
      stopping.push(thread.worker.terminate());
    }
    await Promise.all(stopping);
  }

  #pump(): void {
    while (this.#queue.length > 0 && !this.#closed) {
      let thread: Thread | undefined;
      for (const t of this.#threads) if (!t.task) thread = t;
      if (!thread && this.#threads.size < this.#options.threads) thread = this.#spawn();
      if (!thread) return;
      const task = this.#queue.shift() as Task;
      this.#queuedBytes -= task.bytes;
      this.#assign(thread, task);
    }
  }

  #spawn(): Thread {
    const worker = new Worker(this.#options.script, {
      resourceLimits: { maxOldGenerationSizeMb: this.#options.heapMb, maxYoungGenerationSizeMb: 32, stackSizeMb: 4 },
      // None of the parent's flags: its heap sizes are not the thread's, and process-wide flags are
      // refused in a thread. Type stripping, which the scripts need, is on by default.
      execArgv: [],
    });
    const thread: Thread = { worker, task: undefined, deadline: undefined, idle: undefined };
    worker.unref();
    worker.on('message', (reply: TaskReply) => this.#answered(thread, reply));
    worker.on('error', (error: Error & { code?: string }) => {
      this.#fail(thread, error.code === 'ERR_WORKER_OUT_OF_MEMORY' ? 'memory' : 'crashed', error.message);
    });
    worker.on('exit', () => this.#fail(thread, 'crashed', 'the CPU thread exited'));
    this.#threads.add(thread);
    return thread;
  }

  #assign(thread: Thread, task: Task): void {
    if (thread.idle) clearTimeout(thread.idle);
    thread.idle = undefined;
    thread.task = task;
    thread.worker.ref();
    thread.deadline = setTimeout(() => {
      this.#options.logger?.warn({ kind: task.kind, deadlineMs: task.deadlineMs }, 'a CPU task ran past its deadline; its thread is replaced');
      this.#fail(thread, 'deadline', `the ${task.kind} task ran past its ${task.deadlineMs} ms deadline`);
    }, task.deadlineMs);
    const message: TaskMessage = { id: task.id, kind: task.kind, input: task.input };
    try {
      thread.worker.postMessage(message, task.transfer);
    } catch (error) {
      // Input that cannot be sent (not cloneable): the caller's bug, reported to the caller.
      this.#settle(thread);
      task.reject(new TaskError('crashed', task.kind, error instanceof Error ? error.message : String(error)));
      this.#pump();
    }
  }

  #answered(thread: Thread, reply: TaskReply): void {
    const task = thread.task;
    if (!task || task.id !== reply.id) return;
    this.#settle(thread);
    this.#answeredByKind.set(task.kind, (this.#answeredByKind.get(task.kind) ?? 0) + 1);
    if (reply.ok) task.resolve(reply.value);
    else task.reject(new TaskError('crashed', task.kind, reply.message));
    this.#pump();
  }

  /** The thread's task is over; the thread waits for the next one, or stops after a while. */
  #settle(thread: Thread): void {
    if (thread.deadline) clearTimeout(thread.deadline);
    thread.deadline = undefined;
    thread.task = undefined;
    thread.worker.unref();
    thread.idle = setTimeout(() => {
      this.#forget(thread);
      void thread.worker.terminate();
    }, this.#options.idleMs);
    thread.idle.unref();
  }

  /** The thread is lost (deadline, memory, crash): its task fails with `reason`, a new thread takes the queue. */
  #fail(thread: Thread, reason: TaskFailure, message: string): void {
    if (!this.#threads.has(thread)) return;
    this.#forget(thread);
    const task = thread.task;
    thread.task = undefined;
    if (reason === 'memory') this.#options.logger?.warn({ kind: task?.kind }, 'a CPU task ran past its memory limit; its thread is replaced');
    void thread.worker.terminate();
    task?.reject(new TaskError(reason, task.kind, message));
    this.#pump();
  }

  #forget(thread: Thread): void {
    this.#threads.delete(thread);
    if (thread.deadline) clearTimeout(thread.deadline);
    if (thread.idle) clearTimeout(thread.idle);
    thread.deadline = undefined;
    thread.idle = undefined;
  }
}

/** The bytes a task holds while it waits: its buffers (alone or in a list) and strings, at the top level of its input. */
function bytesOf(input: unknown): number {
  if (input === null || typeof input !== 'object') return 0;
  let bytes = 0;
  for (const value of Object.values(input)) {
    if (ArrayBuffer.isView(value)) bytes += value.byteLength;
    else if (typeof value === 'string') bytes += value.length;
    else if (Array.isArray(value)) for (const item of value) if (ArrayBuffer.isView(item)) bytes += item.byteLength;
  }
  return bytes;
}
