/**
 * How a chat adapter calls its upstream, on undici's low-level `dispatch` API over the provider
 * client's pooled connections (`UpstreamHttpClient.dispatcher`): the response arrives as callbacks
 * (status and headers, then each body chunk), which we hand straight to a parser. No Readable stream,
 * async iterator or abort signal is built per request, which saves CPU on every request and memory on
 * every open stream. What is chat's own stays here: the per-attempt time-out and cancellation (a
 * stream stops the time-out at its first event), and failures as `ChatUpstreamError` values read from
 * OpenAI's and Anthropic's error bodies. Transport classification and Retry-After come from the client.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Dispatcher } from 'undici';
import { BoundedBody, describeTransportError, retryAfterMs, type UpstreamHttpClient } from '../../adapters/outbound/upstream-http-client.ts';
import { isObject } from '../../domain/chat/json-input.ts';
import type { ChatUpstreamError } from './chat-provider.ts';
import { isRetryableStatus } from './chat-provider.ts';

/** Where one upstream style posts: split once per provider, with its headers merged once. */
export interface UpstreamEndpoint {
  origin: string;
  path: string;
  headers: Record<string, string>;
}

/** Checked once against the client's address policy (a refused base URL is a configuration error). */
export function upstreamEndpoint(http: UpstreamHttpClient, url: string, headers: Record<string, string>): UpstreamEndpoint {
  const parsed = http.checkUrl(url);
  return {
    origin: parsed.origin,
    path: `${parsed.pathname}${parsed.search}`,
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
  };
}

/**
 * One upstream attempt's cancellation: the client going away and our time-out both abort it, and we
 * can tell which one did. The time-out covers the call up to the first answer event; streams stop it
 * then (afterwards undici's body time-out bounds the silence between chunks).
 */
export class UpstreamAttempt {
  readonly timeoutMs: number;
  #timer: NodeJS.Timeout | undefined;
  #kind: 'client' | 'timeout' | undefined;
  #controller: Dispatcher.DispatchController | undefined;
  readonly #clientSignal: AbortSignal;
  readonly #onClientAbort = (): void => this.#abort('client');

  constructor(clientSignal: AbortSignal, timeoutMs: number) {
    this.timeoutMs = timeoutMs;
    this.#clientSignal = clientSignal;
    if (clientSignal.aborted) this.#kind = 'client';
    else clientSignal.addEventListener('abort', this.#onClientAbort, { once: true });
    this.#timer = setTimeout(() => this.#abort('timeout'), timeoutMs);
  }

  get aborted(): boolean {
    return this.#kind !== undefined;
  }

  get abortKind(): 'client' | 'timeout' | undefined {
    return this.#kind;
  }

  /** The request has been handed to a connection: from now on an abort cancels it there. */
  bind(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    if (this.#kind) controller.abort(this.#reason());
  }

  stopTimer(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  dispose(): void {
    this.stopTimer();
    this.#controller = undefined;
    this.#clientSignal.removeEventListener('abort', this.#onClientAbort);
  }

  #abort(kind: 'client' | 'timeout'): void {
    if (this.#kind) return;
    this.#kind = kind;
    this.#controller?.abort(this.#reason());
  }

  #reason(): Error {
    return new Error(this.#kind === 'timeout' ? 'upstream time-out' : 'cancelled by the client');
  }
}

/** Starts the POST; `handler` receives the answer. */
export function dispatchPost(dispatcher: Dispatcher, endpoint: UpstreamEndpoint, body: string, attempt: UpstreamAttempt, handler: Dispatcher.DispatchHandler): void {
  dispatcher.dispatch(
    {
      origin: endpoint.origin,
      path: endpoint.path,
      method: 'POST',
      headers: endpoint.headers,
      body,
      headersTimeout: attempt.timeoutMs,
      bodyTimeout: attempt.timeoutMs,
    },
    handler,
  );
}

const MAX_ERROR_BODY = 64 * 1024;

export type WholeAnswer = { ok: true; status: number; text: string } | { ok: false; error: ChatUpstreamError };

/**
 * Posts and reads the whole answer: its text on a 2xx (at most `limit` bytes; more is a failure), or
 * the failure it describes (its error body read up to 64 KiB).
 */
export function postForWholeAnswer(dispatcher: Dispatcher, endpoint: UpstreamEndpoint, body: string, attempt: UpstreamAttempt, limit: number): Promise<WholeAnswer> {
  return new Promise((resolve) => dispatchPost(dispatcher, endpoint, body, attempt, new WholeAnswerHandler<WholeAnswer>(attempt, limit, resolve, (status, answer) => ({ ok: true, status, text: answer.text() }))));
}

/** A 2xx answer's bytes, as they arrived, for a caller that reads a large answer off the event loop. */
export type WholeBytes = { ok: true; status: number; parts: Buffer[]; size: number } | { ok: false; error: ChatUpstreamError };

/** As postForWholeAnswer, but a 2xx answer is given as its chunks, not decoded here. */
export function postForWholeBytes(dispatcher: Dispatcher, endpoint: UpstreamEndpoint, body: string, attempt: UpstreamAttempt, limit: number): Promise<WholeBytes> {
  return new Promise((resolve) => dispatchPost(dispatcher, endpoint, body, attempt, new WholeAnswerHandler<WholeBytes>(attempt, limit, resolve, (status, answer) => ({ ok: true, status, ...answer.parts() }))));
}

class WholeAnswerHandler<T extends { ok: boolean }> implements Dispatcher.DispatchHandler {
  readonly #attempt: UpstreamAttempt;
  readonly #limit: number;
  readonly #resolve: (answer: T | { ok: false; error: ChatUpstreamError }) => void;
  readonly #success: (status: number, body: BoundedBody) => T;
  readonly #body = new BoundedBody();
  #status = 0;
  #headers: IncomingHttpHeaders = {};

  constructor(attempt: UpstreamAttempt, limit: number, resolve: (answer: T | { ok: false; error: ChatUpstreamError }) => void, success: (status: number, body: BoundedBody) => T) {
    this.#attempt = attempt;
    this.#limit = limit;
    this.#resolve = resolve;
    this.#success = success;
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#attempt.bind(controller);
  }

  onResponseStart(_controller: Dispatcher.DispatchController, status: number, headers: IncomingHttpHeaders): void {
    this.#status = status;
    this.#headers = headers;
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    const ok = this.#status >= 200 && this.#status < 300;
    if (this.#body.add(chunk, ok ? this.#limit : MAX_ERROR_BODY)) return;
    if (ok) {
      this.#resolve({ ok: false, error: { status: 502, retryable: true, message: `The upstream answer is larger than ${this.#limit} bytes.` } });
    } else {
      // Enough of an error body to know what it says.
      this.#resolve({ ok: false, error: failureFromText(this.#status, this.#headers, this.#body.text()) });
    }
    controller.abort(new Error('enough of the answer was read'));
  }

  onResponseEnd(): void {
    if (this.#status >= 200 && this.#status < 300) this.#resolve(this.#success(this.#status, this.#body));
    else this.#resolve({ ok: false, error: failureFromText(this.#status, this.#headers, this.#body.text()) });
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    // A body cut while we read an error message still tells us the status; keep what arrived.
    if (this.#status !== 0 && (this.#status < 200 || this.#status >= 300)) {
      this.#resolve({ ok: false, error: failureFromText(this.#status, this.#headers, this.#body.text()) });
    } else this.#resolve({ ok: false, error: failureFromError(error, this.#attempt) });
  }
}

/** A non-2xx answer as a failure value: the upstream's own message and type when its body has them. */
export function failureFromText(status: number, headers: IncomingHttpHeaders, text: string): ChatUpstreamError {
  const error: ChatUpstreamError = { status, retryable: isRetryableStatus(status), message: `The upstream answered HTTP ${status}.`, upstreamBody: text };
  const retryAfter = retryAfterSeconds(headers);
  if (retryAfter !== undefined) error.retryAfterS = retryAfter;
  try {
    const parsed: unknown = JSON.parse(text);
    // OpenAI: {error: {message, type}}; Anthropic: {type: 'error', error: {type, message}}; others: {message}.
    const container = isObject(parsed) ? parsed : {};
    const inner = isObject(container.error) ? container.error : container;
    if (typeof inner.message === 'string' && inner.message !== '') error.message = inner.message;
    else if (typeof container.error === 'string') error.message = container.error;
    if (typeof inner.type === 'string') error.type = inner.type;
  } catch {
    if (text.trim() !== '') error.message = text.trim().slice(0, 500);
  }
  return error;
}

/** A transport error (or our abort) as a failure value. */
export function failureFromError(error: unknown, attempt: UpstreamAttempt): ChatUpstreamError {
  if (attempt.abortKind === 'client') return { status: 499, retryable: false, message: 'The client cancelled the request.' };
  if (attempt.abortKind === 'timeout') {
    return { status: 504, retryable: true, message: `The upstream did not answer within ${attempt.timeoutMs} ms.` };
  }
  const transport = describeTransportError(error);
  if (transport.timeout) return { status: 504, retryable: true, message: `The upstream timed out (${transport.code}).` };
  const detail = transport.code ?? (error instanceof Error ? error.message : String(error));
  return { status: 502, retryable: true, message: `The upstream connection failed (${detail}).` };
}

/** Whole seconds to wait (rounded up), as chat errors carry it; see `retryAfterMs`. */
export function retryAfterSeconds(headers: IncomingHttpHeaders, now = Date.now()): number | undefined {
  const ms = retryAfterMs(headers, now);
  return ms === undefined ? undefined : Math.ceil(ms / 1000);
}
