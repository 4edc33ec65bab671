/**
 * Runs an upstream SSE body through a protocol decoder, for every HTTP adapter. The caller gets the
 * stream only once its first answer event has arrived: an upstream that fails before that (an error
 * event, a cut, a time-out) is reported as a failure value, so failover can still move to the next
 * route before the client has seen a byte.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Dispatcher } from 'undici';
import { BoundedBody } from '../../adapters/outbound/upstream-http-client.ts';
import type { ChatStreamDecoder, ChatStreamError, ChatStreamEvent } from '../../domain/chat/chat-response.types.ts';
import type { ChatUpstreamError, ChatUpstreamResult } from './chat-provider.ts';
import { isRetryableStatus } from './chat-provider.ts';
import { SseParser } from './sse-reader.ts';
import { dispatchPost, failureFromError, failureFromText, type UpstreamAttempt, type UpstreamEndpoint } from './upstream-call.ts';

export async function openUpstreamStream(
  dispatcher: Dispatcher,
  endpoint: UpstreamEndpoint,
  body: string,
  decoder: ChatStreamDecoder,
  attempt: UpstreamAttempt,
): Promise<ChatUpstreamResult> {
  const stream = new UpstreamEventStream(decoder, attempt);
  dispatchPost(dispatcher, endpoint, body, attempt, stream);
  const opened = await stream.opened;
  if (opened !== undefined) return { ok: false, error: opened };
  const leading: ChatStreamEvent[] = [];
  // Hold back message_start and usage until the first event that says how the answer goes.
  for (;;) {
    const next = await stream.next();
    if (next.done) break;
    const event = next.value;
    if (event.type === 'error') {
      await stream.return();
      const { status, message, type } = event.error;
      const error = { status, retryable: isRetryableStatus(status), message };
      return { ok: false, error: type === undefined ? error : { ...error, type } };
    }
    leading.push(event);
    if (event.type !== 'message_start' && event.type !== 'usage') break;
  }
  attempt.stopTimer();
  stream.unshift(leading);
  return { ok: true, kind: 'stream', events: stream };
}

const MAX_ERROR_BODY = 64 * 1024;

/** Longest wait for the end of the body after the final event, before giving the connection up. */
const DRAIN_MS = 250;
/** Decoded events waiting for the consumer before the body is paused (back-pressure to the upstream). */
const HIGH_WATER = 64;

/**
 * The decoded events of one upstream answer, as an async iterator fed by undici's dispatch callbacks:
 * bytes are parsed and decoded as they arrive, synchronously, into a small queue that the consumer
 * pulls from. One object and one pending promise per open stream, instead of a Readable, its async
 * iterator and a chain of async generators (SSE reader, decoder, replay) each holding its own frame
 * and promise: an idle stream costs little memory, and each event little CPU.
 *
 * `opened` settles when the answer's status is known: undefined for a 2xx, whose events follow, or
 * the failure (a non-2xx with its error body, a connection error, a time-out).
 *
 * The final events (those after the decoder is done) are held until the body has ended (normally in
 * the same packet), so that the connection is back in the keep-alive pool before the consumer, told
 * the answer is complete, sends its next request; an upstream that keeps the body open gets DRAIN_MS.
 * A body that breaks before the decoder is done ends the events with the decoder's error event.
 */
export class UpstreamEventStream implements AsyncIterableIterator<ChatStreamEvent>, Dispatcher.DispatchHandler {
  readonly opened: Promise<ChatUpstreamError | undefined>;
  readonly #decoder: ChatStreamDecoder;
  readonly #attempt: UpstreamAttempt;
  #resolveOpened: ((failure: ChatUpstreamError | undefined) => void) | undefined;
  #parser: SseParser | undefined;
  /** A non-2xx answer's body, read to tell the failure. */
  #errorBody: BoundedBody | undefined;
  #status = 0;
  #headers: IncomingHttpHeaders = {};
  #controller: Dispatcher.DispatchController | undefined;
  #queue: ChatStreamEvent[] = [];
  #head = 0;
  /** Final events, released once the body has ended. */
  #held: ChatStreamEvent[] = [];
  #waiter: ((step: IteratorResult<ChatStreamEvent>) => void) | undefined;
  /** Nothing more will be queued. */
  #ended = false;
  #paused = false;
  #drainTimer: NodeJS.Timeout | undefined;

  constructor(decoder: ChatStreamDecoder, attempt: UpstreamAttempt) {
    this.#decoder = decoder;
    this.#attempt = attempt;
    this.opened = new Promise((resolve) => {
      this.#resolveOpened = resolve;
    });
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<ChatStreamEvent> {
    return this;
  }

  next(): Promise<IteratorResult<ChatStreamEvent>> {
    if (this.#head < this.#queue.length) return Promise.resolve({ done: false, value: this.#take() });
    if (this.#ended) return Promise.resolve({ done: true, value: undefined });
    return new Promise((resolve) => {
      this.#waiter = resolve;
    });
  }

  /** The consumer stops early: the upstream request is abandoned (its connection closed). */
  async return(): Promise<IteratorResult<ChatStreamEvent>> {
    this.#queue = [];
    this.#head = 0;
    this.#controller?.abort(new Error('the consumer stopped reading'));
    this.#end();
    return { done: true, value: undefined };
  }

  /** Puts events read ahead back in front (the events openUpstreamStream looked at). */
  unshift(events: ChatStreamEvent[]): void {
    if (events.length === 0) return;
    this.#queue = events.concat(this.#queue.slice(this.#head));
    this.#head = 0;
  }

  // undici's dispatch handler

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    this.#attempt.bind(controller);
  }

  onResponseStart(_controller: Dispatcher.DispatchController, status: number, headers: IncomingHttpHeaders): void {
    this.#status = status;
    if (status >= 200 && status < 300) {
      this.#parser = new SseParser();
      this.#open(undefined);
    } else {
      this.#headers = headers;
      this.#errorBody = new BoundedBody();
    }
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.#ended) return;
    if (this.#errorBody) {
      if (this.#errorBody.add(chunk, MAX_ERROR_BODY)) return;
      this.#failOpen(failureFromText(this.#status, this.#headers, this.#errorBody.text()));
      controller.abort(new Error('enough of the error body was read'));
      return;
    }
    const parser = this.#parser;
    if (!parser) return;
    for (const message of parser.push(chunk)) this.#message(message.event, message.data);
    if (this.#queue.length - this.#head >= HIGH_WATER && !this.#paused) {
      this.#paused = true;
      controller.pause();
    }
    this.#wake();
  }

  onResponseEnd(): void {
    if (this.#ended) return;
    if (this.#errorBody) {
      this.#failOpen(failureFromText(this.#status, this.#headers, this.#errorBody.text()));
      return;
    }
    const parser = this.#parser;
    if (parser) for (const message of parser.end()) this.#message(message.event, message.data);
    this.#push(this.#held);
    this.#push(this.#decoder.finish());
    this.#end();
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    if (this.#ended) return;
    if (this.#errorBody) {
      this.#failOpen(failureFromText(this.#status, this.#headers, this.#errorBody.text()));
      return;
    }
    if (!this.#parser) {
      this.#failOpen(failureFromError(error, this.#attempt));
      return;
    }
    if (this.#decoder.done) this.#push(this.#held);
    else {
      const failure = failureFromError(error, this.#attempt);
      const cause: ChatStreamError = { status: failure.status, message: failure.message };
      if (failure.status === 502) cause.message = `The upstream stream broke (${failure.message}).`;
      this.#push(this.#decoder.finish(cause));
    }
    this.#end();
  }

  #open(failure: ChatUpstreamError | undefined): void {
    const resolve = this.#resolveOpened;
    this.#resolveOpened = undefined;
    resolve?.(failure);
  }

  /** The answer failed before its events began: nothing to iterate. */
  #failOpen(failure: ChatUpstreamError): void {
    this.#open(failure);
    this.#end();
  }

  #take(): ChatStreamEvent {
    const event = this.#queue[this.#head++] as ChatStreamEvent;
    if (this.#head === this.#queue.length) {
      this.#queue = [];
      this.#head = 0;
      if (this.#paused && !this.#ended) {
        this.#paused = false;
        this.#controller?.resume();
      }
    }
    return event;
  }

  #wake(): void {
    const waiter = this.#waiter;
    if (!waiter) return;
    if (this.#head < this.#queue.length) {
      this.#waiter = undefined;
      waiter({ done: false, value: this.#take() });
    } else if (this.#ended) {
      this.#waiter = undefined;
      waiter({ done: true, value: undefined });
    }
  }

  #push(events: ChatStreamEvent[]): void {
    for (const event of events) this.#queue.push(event);
  }

  #message(event: string | undefined, data: string): void {
    const decoder = this.#decoder;
    if (decoder.done) return;
    const events = decoder.push(event, data);
    if (decoder.done) {
      this.#held = events;
      this.#drainTimer ??= setTimeout(() => this.#controller?.abort(new Error('the upstream kept the finished answer open')), DRAIN_MS);
    } else this.#push(events);
  }

  /** No more events: lets the connection and the attempt go, and answers a waiting consumer. */
  #end(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#open(undefined);
    clearTimeout(this.#drainTimer);
    this.#attempt.dispose();
    this.#controller = undefined;
    this.#parser = undefined;
    this.#held = [];
    this.#wake();
  }
}
