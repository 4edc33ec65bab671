/**
 * Server-sent events written straight to the socket. The reply is hijacked (Fastify sends nothing
 * itself), each event's frames are written as they come, a full socket buffer pauses the reading of
 * the upstream (back-pressure: the next event is pulled only after `drain`), and a shared timer sends
 * keep-alive frames on streams that have been silent, so a CDN never sees an idle connection.
 */
import type { ServerResponse } from 'node:http';
import type { ChatStreamEncoder, ChatStreamEvent } from '../domain/chat/chat-response.types.ts';

/** Headers of every event stream: no caching, and no buffering by nginx-style proxies. */
export const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  'x-accel-buffering': 'no',
  connection: 'keep-alive',
} as const;

/** The reconnection delay a reader of an event stream is given when this process shuts down under it. */
export const SHUTDOWN_RETRY_MS = 250;

/** The encoder of a stream written as ready-made frames: only the keep-alive frame comes from it. */
export const PING_ONLY: ChatStreamEncoder = { encode: () => '', ping: () => ': ping\n\n' };

export interface OpenStream {
  res: ServerResponse;
  encoder: ChatStreamEncoder;
  /** Something was written since the last tick. */
  wrote: boolean;
}

/**
 * Keep-alive for every open stream of a route, with one timer: a stream that wrote nothing during a
 * whole tick gets a ping. With ticks of half the allowed silence, no stream stays silent longer than
 * `maxSilenceMs` (15 s by default, well under the ~100 s a CDN allows). The timer runs only while
 * streams are open.
 */
export class SseHeartbeat {
  readonly #streams = new Set<OpenStream>();
  readonly #tickMs: number;
  #timer: NodeJS.Timeout | undefined;

  constructor(maxSilenceMs = 15_000) {
    this.#tickMs = Math.max(10, Math.floor(maxSilenceMs / 2));
  }

  get size(): number {
    return this.#streams.size;
  }

  add(stream: OpenStream): void {
    this.#streams.add(stream);
    if (!this.#timer) {
      this.#timer = setInterval(() => this.#tick(), this.#tickMs);
      this.#timer.unref();
    }
  }

  delete(stream: OpenStream): void {
    this.#streams.delete(stream);
    if (this.#streams.size === 0) this.stop();
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  #tick(): void {
    for (const stream of this.#streams) {
      if (!stream.wrote && isOpen(stream.res)) stream.res.write(stream.encoder.ping());
      stream.wrote = false;
    }
  }
}

/**
 * A controller aborted when the client goes away before its response has been written completely
 * (the connection closed early), or at once when it has gone already (it left while the request
 * waited at the door): no 'close' is coming then.
 */
export function clientGoneController(res: ServerResponse): AbortController {
  const controller = new AbortController();
  if (res.closed && !res.writableFinished) {
    controller.abort(new Error('the client went away'));
    return controller;
  }
  res.once('close', () => {
    if (!res.writableFinished) controller.abort(new Error('the client went away'));
  });
  return controller;
}

/**
 * Writes the events as SSE on the response (status 200, the SSE headers plus `headers`) and ends it. Frames are written as their events
 * come; the frames of events that arrive in the same turn of the event loop (usually one network read
 * of the upstream) leave in one write, which saves a system call and a chunk per event without holding
 * anything back. Consumes `events` to the end even after the client left (the source then ends
 * quickly, its upstream having been cancelled), so that the source can settle what was observed.
 */
export async function writeEventStream(
  res: ServerResponse,
  headers: Record<string, string | number | string[]>,
  events: AsyncIterable<ChatStreamEvent>,
  encoder: ChatStreamEncoder,
  heartbeat: SseHeartbeat,
): Promise<void> {
  res.writeHead(200, { ...SSE_HEADERS, ...headers });
  const stream: OpenStream = { res, encoder, wrote: true };
  heartbeat.add(stream);
  let pending = '';
  let full: Promise<void> | undefined;
  let scheduled = false;
  const flush = (): void => {
    scheduled = false;
    if (pending === '' || !isOpen(res)) return;
    const text = pending;
    pending = '';
    stream.wrote = true;
    // The socket's buffer is full: the loop below pulls the next event only after it drains.
    if (!res.write(text)) full = drained(res);
  };
  try {
    for await (const event of events) {
      const text = encoder.encode(event);
      if (text === '') continue;
      pending += text;
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
      if (full) {
        await full;
        full = undefined;
      }
    }
  } finally {
    heartbeat.delete(stream);
    flush();
    if (isOpen(res)) res.end();
  }
}

function isOpen(res: ServerResponse): boolean {
  return !res.destroyed && !res.writableEnded;
}

/** Resolves on `drain`, or when the connection closes (nothing more will drain then). */
function drained(res: ServerResponse): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = (): void => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}
