/**
 * Outbound HTTP for the chat adapters, on undici's low-level `dispatch` API: the response arrives as
 * callbacks (status and headers, then each body chunk), which we hand straight to a parser. No
 * Readable stream, async iterator or abort signal is built per request, which saves CPU on every
 * request and memory on every open stream. Also: the per-attempt time-out and cancellation, and the
 * classification of failures into values.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { Agent, type Dispatcher } from 'undici';
import { isObject } from '../../domain/chat/json-input.ts';
import type { ChatUpstreamError } from './chat-provider.ts';
import { isRetryableStatus } from './chat-provider.ts';

/**
 * The Agent all chat adapters share (built by the registry, never at import time). Keep-alive reuses
 * connections across requests; `allowH2` (undici's default) multiplexes on vendors that offer HTTP/2.
 * Pipelining stays at 1: a streamed answer can last minutes, and every request pipelined behind it on
 * the same HTTP/1.1 connection would wait for it (head-of-line blocking); more connections serve
 * throughput better.
 */
export function createUpstreamAgent(): Agent {
  return new Agent({
    keepAliveTimeout: 30_000,
    keepAliveMaxTimeout: 300_000,
    pipelining: 1,
    connect: { timeout: 10_000 },
  });
}

/** Where one upstream style posts: split once per provider, with its headers merged once. */
export interface UpstreamEndpoint {
  origin: string;
  path: string;
  headers: Record<string, string>;
}

export function upstreamEndpoint(url: string, headers: Record<string, string>): UpstreamEndpoint {
  const parsed = new URL(url);
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
  return new Promise((resolve) => dispatchPost(dispatcher, endpoint, body, attempt, new WholeAnswerHandler(attempt, limit, resolve)));
}

class WholeAnswerHandler implements Dispatcher.DispatchHandler {
  readonly #attempt: UpstreamAttempt;
  readonly #limit: number;
  readonly #resolve: (answer: WholeAnswer) => void;
  readonly #body = new BoundedBody();
  #status = 0;
  #headers: IncomingHttpHeaders = {};

  constructor(attempt: UpstreamAttempt, limit: number, resolve: (answer: WholeAnswer) => void) {
    this.#attempt = attempt;
    this.#limit = limit;
    this.#resolve = resolve;
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
    const text = this.#body.text();
    if (this.#status >= 200 && this.#status < 300) this.#resolve({ ok: true, status: this.#status, text });
    else this.#resolve({ ok: false, error: failureFromText(this.#status, this.#headers, text) });
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    // A body cut while we read an error message still tells us the status; keep what arrived.
    if (this.#status !== 0 && (this.#status < 200 || this.#status >= 300)) {
      this.#resolve({ ok: false, error: failureFromText(this.#status, this.#headers, this.#body.text()) });
    } else this.#resolve({ ok: false, error: failureFromError(error, this.#attempt) });
  }
}

/** Body chunks kept up to a limit. */
export class BoundedBody {
  #chunks: Buffer[] = [];
  #size = 0;

  /** False when the limit was reached (what fits is kept). */
  add(chunk: Buffer, limit: number): boolean {
    const room = limit - this.#size;
    if (chunk.length > room) {
      if (room > 0) this.#chunks.push(chunk.subarray(0, room));
      this.#size = limit;
      return false;
    }
    this.#chunks.push(chunk);
    this.#size += chunk.length;
    return true;
  }

  text(): string {
    const chunks = this.#chunks;
    if (chunks.length === 1) return (chunks[0] as Buffer).toString('utf8');
    return Buffer.concat(chunks, this.#size).toString('utf8');
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

const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT', 'ETIMEDOUT']);

/** A transport error (or our abort) as a failure value. */
export function failureFromError(error: unknown, attempt: UpstreamAttempt): ChatUpstreamError {
  if (attempt.abortKind === 'client') return { status: 499, retryable: false, message: 'The client cancelled the request.' };
  if (attempt.abortKind === 'timeout') {
    return { status: 504, retryable: true, message: `The upstream did not answer within ${attempt.timeoutMs} ms.` };
  }
  const code = errorCode(error);
  if (code !== undefined && TIMEOUT_CODES.has(code)) return { status: 504, retryable: true, message: `The upstream timed out (${code}).` };
  const detail = code ?? (error instanceof Error ? error.message : String(error));
  return { status: 502, retryable: true, message: `The upstream connection failed (${detail}).` };
}

function errorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current instanceof Error; depth++) {
    const code = (current as Error & { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = current.cause;
  }
  return undefined;
}

/** Seconds to wait, from `retry-after-ms` (OpenAI), or `retry-after` as seconds or an HTTP date. */
export function retryAfterSeconds(headers: IncomingHttpHeaders, now = Date.now()): number | undefined {
  const ms = Number(headerValue(headers['retry-after-ms']));
  if (headerValue(headers['retry-after-ms']) !== undefined && Number.isFinite(ms) && ms >= 0) return Math.ceil(ms / 1000);
  const raw = headerValue(headers['retry-after']);
  if (raw === undefined || raw.trim() === '') return undefined;
  const seconds = Number(raw);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.ceil(seconds);
  const date = Date.parse(raw);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now) / 1000));
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
