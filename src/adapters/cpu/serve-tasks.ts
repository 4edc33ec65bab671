/**
 * The thread side of a task pool: a worker script calls `serveTasks` with its catalog's
 * implementations, and answers each task message with its result (structured clone).
 */
import { parentPort } from 'node:worker_threads';
import type { TaskCatalog } from '../../ports/cpu-pool.port.ts';

export type TaskImplementations<C extends TaskCatalog> = { [K in keyof C]: (input: C[K]['input']) => C[K]['output'] };

export interface TaskMessage {
  id: number;
  kind: string;
  input: unknown;
}

export type TaskReply = { id: number; ok: true; value: unknown } | { id: number; ok: false; message: string };

export function serveTasks<C extends TaskCatalog>(tasks: TaskImplementations<C>): void {
  const port = parentPort;
  if (!port) throw new Error('serveTasks runs in a worker thread');
  const table = tasks as Record<string, (input: unknown) => unknown>;
  port.on('message', (message: TaskMessage) => {
    let reply: TaskReply;
    try {
      const run = table[message.kind];
      if (!run) throw new Error(`no task ${message.kind}`);
      reply = { id: message.id, ok: true, value: run(message.input) };
    } catch (error) {
      reply = { id: message.id, ok: false, message: error instanceof Error ? error.message : String(error) };
    }
    port.postMessage(reply);
  });
}
