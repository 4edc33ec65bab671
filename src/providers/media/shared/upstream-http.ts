/**
 * The one HTTP helper of the media provider adapters: JSON (or raw) calls to an upstream API with a
 * deadline, the runner's AbortSignal, a bounded body, and pooled keep-alive connections (one undici
 * Agent per provider). It never throws for network trouble: it says whether the request may have
 * reached the upstream, because a submit that may have arrived must be reconciled, never re-sent.
 *
 * Upstream base URLs come from the operator's config, not from users, so this client does not apply
 * the guarded client's address policy (DESIGN decision 9 covers user-supplied URLs only).
 */
import { Agent, request } from 'undici';
import type { ProviderError } from '../media-provider.ts';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

export interface UpstreamRequest {
  method: HttpMethod;
  url: string;
  headers?: Record<string, string>;
  /** Serialized as JSON with `content-type: application/json`. */
  json?: unknown;
  /** A raw body (multipart); give its content type in `headers`. */
  body?: Buffer | string;
  /** The runner's signal: aborting it ends the exchange. */
  signal?: AbortSignal;
  /** Deadline of the whole exchange; the provider's `timeoutMs` when absent. */
  timeoutMs?: number;
  /** Largest response body read; default 16 MiB. */
  maxBytes?: number;
}

export interface UpstreamResponse {
  status: number;
  /** Lower-case names. */
  headers: Record<string, string>;
  body: Buffer;
}

export type HttpExchange =
  | { kind: 'response'; response: UpstreamResponse }
  /**
   * No usable answer. `maybeDelivered` is false only when the request certainly never reached the
   * upstream (refused connection, unknown host, connect timeout, TLS failure before sending).
   */
  | { kind: 'no-response'; maybeDelivered: boolean; error: ProviderError };

const DEFAULT_MAX_BYTES = 16 * 1024 * 1024;

/** Failures that happen before a byte of the request can have been read by the upstream. */
const NOT_SENT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_INVALID_ARG',
  'ERR_INVALID_URL',
]);

function errorCodes(error: unknown): string[] {
  const codes: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current !== null && typeof current === 'object'; depth += 1) {
    if ('code' in current && typeof current.code === 'string') codes.push(current.code);
    current = 'cause' in current ? current.cause : undefined;
  }
  return codes;
}

function isTlsSetupCode(code: string): boolean {
  return code.startsWith('ERR_TLS_') || code.startsWith('ERR_SSL_') || /CERT|SELF_SIGNED|UNABLE_TO_VERIFY/u.test(code);
}

export interface UpstreamHttpOptions {
  /** Default deadline of one exchange. */
  timeoutMs: number;
  /** Idle keep-alive sockets are closed after this long; default 4 s. */
  keepAliveMs?: number;
  /** Most sockets per origin; unlimited when absent. */
  connections?: number;
  userAgent?: string;
}

export class UpstreamHttp {
  readonly #agent: Agent;
  readonly #timeoutMs: number;
  readonly #userAgent: string;

  constructor(options: UpstreamHttpOptions) {
    this.#timeoutMs = options.timeoutMs;
    this.#userAgent = options.userAgent ?? 'Switchboard/0.1 (+media-provider)';
    this.#agent = new Agent({
      keepAliveTimeout: options.keepAliveMs ?? 4_000,
      // A server that announces a longer idle timeout (Keep-Alive: timeout=N) is believed, up to 10 minutes.
      keepAliveMaxTimeout: 600_000,
      connections: options.connections ?? null,
      connect: { timeout: Math.min(10_000, options.timeoutMs) },
    });
  }

  async send(req: UpstreamRequest): Promise<HttpExchange> {
    const timeoutMs = req.timeoutMs ?? this.#timeoutMs;
    // One controller per exchange, ended by our deadline or the caller's signal; cleared on return
    // (AbortSignal.timeout would leave a timer per request running for the whole deadline).
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    const onCallerAbort = () => controller.abort();
    if (req.signal?.aborted) controller.abort();
    else req.signal?.addEventListener('abort', onCallerAbort, { once: true });
    const headers: Record<string, string> = { 'user-agent': this.#userAgent, accept: 'application/json', ...req.headers };
    let body: Buffer | string | undefined = req.body;
    if (req.json !== undefined) {
      body = JSON.stringify(req.json);
      headers['content-type'] = 'application/json';
    }
    try {
      const response = await request(req.url, {
        dispatcher: this.#agent,
        method: req.method,
        headers,
        body: body ?? null,
        signal: controller.signal,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      const limit = req.maxBytes ?? DEFAULT_MAX_BYTES;
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of response.body) {
        const bytes = chunk as Buffer;
        size += bytes.length;
        if (size > limit) {
          response.body.destroy();
          return {
            kind: 'no-response',
            maybeDelivered: true,
            error: { message: `the upstream answer is larger than ${limit} bytes`, retryable: true, status: response.statusCode, code: 'protocol' },
          };
        }
        chunks.push(bytes);
      }
      const flat: Record<string, string> = {};
      for (const [name, value] of Object.entries(response.headers)) {
        if (value !== undefined) flat[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
      }
      return { kind: 'response', response: { status: response.statusCode, headers: flat, body: Buffer.concat(chunks, size) } };
    } catch (error) {
      return this.#failure(error, req, timedOut, timeoutMs);
    } finally {
      clearTimeout(timer);
      req.signal?.removeEventListener('abort', onCallerAbort);
    }
  }

  #failure(error: unknown, req: UpstreamRequest, timedOut: boolean, timeoutMs: number): HttpExchange {
    const codes = errorCodes(error);
    const notSent = codes.some((c) => NOT_SENT_CODES.has(c) || isTlsSetupCode(c));
    const message = error instanceof Error ? error.message : String(error);
    let where = `${req.method} ${req.url}`;
    try {
      where = `${req.method} ${new URL(req.url).pathname}`;
    } catch {
      // not a URL: keep it as given
    }
    if (req.signal?.aborted && !timedOut) {
      return { kind: 'no-response', maybeDelivered: !notSent, error: { message: `${where}: cancelled by the caller`, retryable: true, code: 'network' } };
    }
    const isTimeout = timedOut || codes.some((c) => c === 'UND_ERR_HEADERS_TIMEOUT' || c === 'UND_ERR_BODY_TIMEOUT' || c === 'UND_ERR_CONNECT_TIMEOUT');
    return {
      kind: 'no-response',
      maybeDelivered: !notSent,
      error: isTimeout
        ? { message: `${where}: no answer within ${timeoutMs} ms`, retryable: true, code: 'timeout' }
        : { message: `${where}: ${codes[0] ?? 'network error'}: ${message}`, retryable: true, code: 'network' },
    };
  }

  close(): Promise<void> {
    return this.#agent.close();
  }
}

/** `base` without trailing slashes + `path` (which starts with `/`). */
export function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/u, '')}${path}`;
}

/** The body as JSON, or undefined when it is not JSON. */
export function parseJson(body: Buffer): unknown {
  if (body.length === 0) return undefined;
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** A member of a JSON object when it is an object. */
export function recordAt(value: unknown, key: string): Record<string, unknown> | undefined {
  if (!isRecord(value)) return undefined;
  const member = value[key];
  return isRecord(member) ? member : undefined;
}

export function stringAt(value: unknown, key: string): string | undefined {
  if (!isRecord(value)) return undefined;
  const member = value[key];
  return typeof member === 'string' ? member : typeof member === 'number' ? String(member) : undefined;
}

export function numberAt(value: unknown, key: string): number | undefined {
  if (!isRecord(value)) return undefined;
  const member = value[key];
  if (typeof member === 'number' && Number.isFinite(member)) return member;
  if (typeof member === 'string' && member.trim() !== '' && Number.isFinite(Number(member))) return Number(member);
  return undefined;
}

/** Short text of a body for error messages. */
export function bodySnippet(body: Buffer, max = 300): string {
  const text = body.toString('utf8').replace(/\s+/gu, ' ').trim();
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
