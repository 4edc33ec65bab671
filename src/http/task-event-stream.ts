/**
 * GET /api/v1/task/{taskId}/events as server-sent events (issue 34, item 3): the task's progress
 * (domain/tasks/task-events.ts) after the cursor (`Last-Event-ID`), then each new step as the worker
 * announces it on the event bus (task-watch.ts; Redis in scale-out, where the worker is another
 * process). The stream subscribes before it reads, and every read sends only the events after the
 * last one written, so each event goes out once and in order. It ends after the task's last event
 * (finished, failed, expired): a finished task's stream sends its history and closes. Like the
 * agent's streams, it gets `event: closed` and ends when the API key that opened it is revoked, and
 * a short `retry:` when this process shuts down.
 */
import type { ServerResponse } from 'node:http';
import { deriveTaskEvents, type TaskEvent } from '../domain/tasks/task-events.ts';
import { isTerminal } from '../domain/tasks/task-status.ts';
import type { AttemptRow, TaskRow } from '../ports/task-store.port.ts';
import type { TaskWatch } from '../services/generation/task-watch.ts';
import type { StreamLease } from './open-streams.ts';
import { type OpenStream, PING_ONLY, SHUTDOWN_RETRY_MS, SSE_HEADERS, type SseHeartbeat } from './sse.ts';

/** A message the bus lost (or a publisher that died after its commit) is caught up by a read this often. */
const CATCH_UP_MS = 5_000;

export interface TaskStreamArgs {
  res: ServerResponse;
  taskId: string;
  /** The task and its attempts as committed now; undefined when it is gone. */
  read: () => Promise<{ task: TaskRow; attempts: AttemptRow[] } | undefined>;
  watch: TaskWatch;
  heartbeat: SseHeartbeat;
  lease: StreamLease;
  afterId: number;
  headers: Record<string, string>;
}

export function taskEventFrame(taskId: string, event: TaskEvent): string {
  const { id, type, ...rest } = event;
  return `id: ${id}\nevent: ${type}\ndata: ${JSON.stringify({ taskId, type, ...rest })}\n\n`;
}

export async function streamTaskEvents(args: TaskStreamArgs): Promise<void> {
  const { res } = args;
  res.writeHead(200, { ...SSE_HEADERS, ...args.headers });
  res.write('retry: 2000\n\n');
  const stream: OpenStream = { res, encoder: PING_ONLY, wrote: true };
  let last = args.afterId;
  let closed = false;
  let unsubscribe: (() => Promise<void>) | undefined;
  let timer: NodeJS.Timeout | undefined;
  const write = (text: string): void => {
    if (closed || res.destroyed || res.writableEnded) return;
    stream.wrote = true;
    res.write(text);
  };
  const finish = (): void => {
    if (closed) return;
    closed = true;
    clearInterval(timer);
    void unsubscribe?.().catch(() => {});
    args.lease.release();
    args.heartbeat.delete(stream);
    if (!res.writableEnded) res.end();
  };
  res.once('close', finish);
  args.lease.onRevoke((reason) => {
    write(`event: closed\ndata: ${JSON.stringify({ reason })}\n\n`);
    finish();
  });
  args.lease.onShutdown(() => {
    write(`retry: ${SHUTDOWN_RETRY_MS}\n\n`);
    finish();
  });
  // Reads are chained: each sees the store at least as new as the one before, and sends what is new.
  let chain = Promise.resolve();
  const catchUp = (): Promise<void> => {
    chain = chain.then(async () => {
      if (closed) return;
      const found = await args.read().catch(() => undefined);
      if (closed) return;
      if (!found) {
        finish();
        return;
      }
      const events = deriveTaskEvents(found.task, found.attempts);
      for (const event of events) {
        if (event.id <= last) continue;
        last = event.id;
        write(taskEventFrame(args.taskId, event));
      }
      // An ended task's history is complete: the stream closes after it.
      if (isTerminal(found.task.status)) finish();
    });
    return chain;
  };
  unsubscribe = await args.watch.watch(args.taskId, () => void catchUp());
  if (closed) {
    await unsubscribe().catch(() => {});
    return;
  }
  args.heartbeat.add(stream);
  timer = setInterval(() => void catchUp(), CATCH_UP_MS);
  timer.unref();
  await catchUp();
}
