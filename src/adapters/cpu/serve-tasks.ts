/**
 * The thread side of a task pool: a worker script calls `serveTasks` with its catalog's
 * implementations, and answers each task message with its result (structured clone).
 */
import { parentPort } from 'node:worker_threads';
import type { TaskCatalog } from '../../ports/cpu-pool.port.ts';

export type TaskImplementations<C extends TaskCatalog> = { [K in keyof C]: (input: C[K]['input']) => C[K]['output'] };
/** The buffers of an output handed back without a copy (a large answer would otherwise be copied on the event loop). */
export type TaskOutputTransfers<C extends TaskCatalog> = { [K in keyof C]?: (output: C[K]['output']) => ArrayBuffer[] };

export interface TaskMessage {
  id: number;
  kind: string;
  input: unknown;
}

export type TaskReply = { id: number; ok: true; value: unknown } | { id: number; ok: false; message: string };

export function serveTasks<C extends TaskCatalog>(tasks: TaskImplementations<C>, transfers: TaskOutputTransfers<C> = {}): void {
  const port = parentPort;
  if (!port) throw new Error('serveTasks runs in a worker thread');
  const table = tasks as Record<string, (input: unknown) => unknown>;
  const handOver = transfers as Record<string, ((output: unknown) => ArrayBuffer[]) | undefined>;
  port.on('message', (message: TaskMessage) => {
    let reply: TaskReply;
    let transfer: ArrayBuffer[] = [];
    try {
      const run = table[message.kind];
      if (!run) throw new Error(`no task ${message.kind}`);
      const value = run(message.input);
      transfer = handOver[message.kind]?.(value) ?? [];
      reply = { id: message.id, ok: true, value };
    } catch (error) {
      reply = { id: message.id, ok: false, message: error instanceof Error ? error.message : String(error) };
    }
    port.postMessage(reply, transfer);
  });
}
