/**
 * GET /agent/conversations/{id}/events as server-sent events (AGENT.md "Events"): the events after
 * the cursor (`Last-Event-ID`, or `afterSequence`) from the store, then live ones from this process's
 * event hub, each exactly once and in sequence order: the reader subscribes before it replays, and
 * drops what it has already written. `id:` is the sequence. A cursor older than the events kept gets
 * `event: resync` and the stream closes; a deleted conversation gets `event: closed`. A reader that
 * does not keep up (1 MiB unsent) is disconnected and resumes with Last-Event-ID. When the API key or
 * session that opened the stream stops being valid, it gets `event: closed` and ends. When the process
 * shuts down, it gets a short `retry:` and ends, so that the reader reconnects to another process.
 */
import type { ServerResponse } from 'node:http';
import type { Kysely } from 'kysely';
import { listEventsAfter, oldestEventSequence } from '../adapters/db/repositories/agent/events.repository.ts';
import type { Schema } from '../adapters/db/schema.ts';
import type { ChatStreamEncoder } from '../domain/chat/chat-response.types.ts';
import type { AgentEventHub } from '../services/agent/events/event-hub.ts';
import { eventFromRow, sseFrame } from '../services/agent/events/event-records.ts';
import type { StreamLease } from './open-streams.ts';
import { type OpenStream, PING_ONLY, SHUTDOWN_RETRY_MS, SSE_HEADERS, type SseHeartbeat } from './sse.ts';

const PAGE = 500;
const MAX_UNSENT_BYTES = 1024 * 1024;

export interface AgentStreamArgs {
  res: ServerResponse;
  db: Kysely<Schema>;
  hub: AgentEventHub;
  heartbeat: SseHeartbeat;
  /** The stream's registration (open-streams.ts): released when it ends, closes it on revocation. */
  lease: StreamLease;
  conversationId: string;
  afterSequence: number;
  headers: Record<string, string>;
}

export async function streamAgentEvents(args: AgentStreamArgs): Promise<void> {
  const { res, conversationId } = args;
  res.writeHead(200, { ...SSE_HEADERS, ...args.headers });
  res.write('retry: 2000\n\n');
  const stream: OpenStream = { res, encoder: PING_ONLY, wrote: true };
  let last = args.afterSequence;
  let live = false;
  let closed = false;
  const held: Array<{ sequence: number; frame: string }> = [];
  const write = (text: string): void => {
    if (closed || res.destroyed || res.writableEnded) return;
    stream.wrote = true;
    res.write(text);
    if (res.writableLength > MAX_UNSENT_BYTES) finish();
  };
  const finish = (): void => {
    if (closed) return;
    closed = true;
    unsubscribe?.();
    args.lease.release();
    args.heartbeat.delete(stream);
    if (!res.writableEnded) res.end();
  };
  let unsubscribe: (() => void) | undefined;
  res.once('close', finish);
  args.lease.onRevoke((reason) => {
    write(`event: closed\ndata: ${JSON.stringify({ reason })}\n\n`);
    finish();
  });
  // A restart: the client reconnects soon, with Last-Event-ID, and the front sends it to a process
  // that is still up; nothing is lost, as the events are read back from the store.
  args.lease.onShutdown(() => {
    write(`retry: ${SHUTDOWN_RETRY_MS}\n\n`);
    finish();
  });
  unsubscribe = await args.hub.subscribe(conversationId, {
    onEvent(event, frame) {
      if (!live) {
        held.push({ sequence: event.sequence, frame });
        return;
      }
      if (event.sequence <= last) return;
      last = event.sequence;
      write(frame);
    },
    onClose(reason) {
      write(`event: closed\ndata: ${JSON.stringify({ reason })}\n\n`);
      finish();
    },
  });
  if (closed) {
    unsubscribe();
    return;
  }
  args.heartbeat.add(stream);
  const oldest = await oldestEventSequence(args.db, conversationId);
  if (oldest !== undefined && last < oldest - 1) {
    write(`event: resync\ndata: ${JSON.stringify({ oldestSequence: oldest, reason: 'the events after your cursor are past their retention; read the conversation again and reconnect without Last-Event-ID' })}\n\n`);
    finish();
    return;
  }
  for (;;) {
    const rows = await listEventsAfter(args.db, conversationId, last, PAGE);
    for (const row of rows) {
      const event = eventFromRow(row);
      if (event.sequence <= last) continue;
      last = event.sequence;
      write(sseFrame(event));
    }
    if (rows.length < PAGE || closed) break;
  }
  live = true;
  for (const { sequence, frame } of held.splice(0)) {
    if (sequence <= last) continue;
    last = sequence;
    write(frame);
  }
}
