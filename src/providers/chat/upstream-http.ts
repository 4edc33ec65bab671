/**
 * Outbound HTTP for the chat adapters: one shared undici Agent, a per-attempt abort controller that
 * joins the client's signal with our time-out, and the classification of failures into values.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { Agent, type Dispatcher, request } from 'undici';
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

/**
 * One upstream attempt's cancellation: the client's signal and our time-out both abort it, and we can
 * tell which one did. The time-out covers the call up to the first answer event; streams stop it then
 * (afterwards undici's body time-out bounds the silence between chunks).
 */
export class UpstreamAttempt {
  readonly controller = new AbortController();
  readonly timeoutMs: number;
  #timer: NodeJS.Timeout | undefined;
  #kind: 'client' | 'timeout' | undefined;
  readonly #clientSignal: AbortSignal;
  readonly #onClientAbort = (): void => this.#abort('client');

  constructor(clientSignal: AbortSignal, timeoutMs: number) {
    this.timeoutMs = timeoutMs;
    this.#clientSignal = clientSignal;
    if (clientSignal.aborted) this.#abort('client');
    else clientSignal.addEventListener('abort', this.#onClientAbort, { once: true });
    this.#timer = setTimeout(() => this.#abort('timeout'), timeoutMs);
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get abortKind(): 'client' | 'timeout' | undefined {
    return this.#kind;
  }

  stopTimer(): void {
    clearTimeout(this.#timer);
  }

  dispose(): void {
    this.stopTimer();
    this.#clientSignal.removeEventListener('abort', this.#onClientAbort);
  }

  #abort(kind: 'client' | 'timeout'): void {
    if (this.#kind) return;
    this.#kind = kind;
    this.controller.abort(new Error(kind === 'client' ? 'cancelled by the client' : 'upstream time-out'));
  }
}

export type UpstreamHttpResponse =
  | { ok: true; status: number; headers: IncomingHttpHeaders; body: Dispatcher.ResponseData['body'] }
  | { ok: false; error: ChatUpstreamError };

export async function postJson(
  url: string,
  headers: Record<string, string>,
  body: unknown,
  attempt: UpstreamAttempt,
  dispatcher: Dispatcher,
): Promise<UpstreamHttpResponse> {
  try {
    const response = await request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body: JSON.stringify(body),
      dispatcher,
      signal: attempt.signal,
      headersTimeout: attempt.timeoutMs,
      bodyTimeout: attempt.timeoutMs,
    });
    if (response.statusCode >= 200 && response.statusCode < 300) {
      return { ok: true, status: response.statusCode, headers: response.headers, body: response.body };
    }
    return { ok: false, error: await failureFromResponse(response.statusCode, response.headers, response.body) };
  } catch (error) {
    return { ok: false, error: failureFromError(error, attempt) };
  }
}

const MAX_ERROR_BODY = 64 * 1024;

/** Reads at most 64 KiB of a body as text, then lets the rest go. */
export async function readBounded(body: AsyncIterable<Uint8Array> & { destroy(): unknown }, limit = MAX_ERROR_BODY): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      const buffer = Buffer.from(chunk);
      chunks.push(buffer);
      size += buffer.length;
      if (size >= limit) {
        body.destroy();
        break;
      }
    }
  } catch {
    // A body cut while we read an error message still tells us the status; keep what arrived.
  }
  return Buffer.concat(chunks).subarray(0, limit).toString('utf8');
}

export async function failureFromResponse(
  status: number,
  headers: IncomingHttpHeaders,
  body: AsyncIterable<Uint8Array> & { destroy(): unknown },
): Promise<ChatUpstreamError> {
  const text = await readBounded(body);
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

/** A thrown transport error (or our abort) as a failure value. */
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
