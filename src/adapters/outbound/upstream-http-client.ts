/**
 * The one HTTP client of the provider adapters (media, chat, payments), built on the guarded client's
 * address policy: a pooled keep-alive undici Agent whose new connections resolve the name once and
 * connect only to allowed addresses (`GuardedHttpClient.connectLookup`), and a URL check for literal
 * addresses. Upstream base URLs are the operator's, so the default policy allows private networks (a
 * vLLM or a peer next door) and refuses only what is never an upstream (unspecified, multicast,
 * broadcast); DESIGN decision 9's strict policy stays for user-supplied URLs.
 *
 * Here, once: the deadline and the caller's abort, the bounded body, what a transport failure means
 * (a time-out or not; whether the request may have reached the upstream), and Retry-After. Protocol
 * matters stay with the callers: chat streams on `dispatcher` with its own SSE reading and error
 * bodies, media reads JSON envelopes, payments a form API.
 */
import { Agent, type Dispatcher, request } from 'undici';
import { GuardedHttpClient } from './guarded-http-client.ts';
import { OutboundUrlError } from './outbound-url-error.ts';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

export interface UpstreamRequest {
  method: HttpMethod;
  url: string;
  headers?: Record<string, string>;
  /** Serialized as JSON with `content-type: application/json`. */
  json?: unknown;
  /** A raw body (multipart, a form); give its content type in `headers`. */
  body?: Buffer | string;
  /** The caller's signal: aborting it ends the exchange. */
  signal?: AbortSignal;
  /** Deadline of the whole exchange; the client's `timeoutMs` when absent. */
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

/** A call without a usable answer: always worth another try, here later or on another route. */
export interface UpstreamFailure {
  message: string;
  retryable: true;
  code: 'network' | 'timeout' | 'protocol';
  status?: number;
}

export type HttpExchange =
  | { kind: 'response'; response: UpstreamResponse }
  /**
   * No usable answer. `maybeDelivered` is false only when the request certainly never reached the
   * upstream (refused connection, unknown or refused host, connect timeout, TLS failure before sending).
   */
  | { kind: 'no-response'; maybeDelivered: boolean; error: UpstreamFailure };

export interface UpstreamHttpClientOptions {
  /** Default deadline of one exchange. */
  timeoutMs: number;
  /** Idle keep-alive sockets are closed after this long; default 4 s. */
  keepAliveMs?: number;
  /** The longest idle time a server's `Keep-Alive: timeout=N` is believed; default 10 minutes. */
  keepAliveMaxMs?: number;
  /** Most sockets per origin; unlimited when absent. */
  connections?: number;
  /** Default: 10 s, or `timeoutMs` when shorter. */
  connectTimeoutMs?: number;
  /** Requests in flight per HTTP/1.1 connection; undici's default (1) when absent. */
  pipelining?: number;
  userAgent?: string;
  /** The address policy; the operator's (private networks allowed) when absent. */
  policy?: GuardedHttpClient;
}

const DEFAULT_MAX_BYTES = 16 * 1024 * 1024;

/** The policy for operator-configured upstreams: private networks are the operator's to use. */
export function operatorUpstreamPolicy(): GuardedHttpClient {
  return new GuardedHttpClient({ allowPrivate: true });
}

export class UpstreamHttpClient {
  readonly #agent: Agent;
  readonly #timeoutMs: number;
  readonly #userAgent: string;
  readonly #policy: GuardedHttpClient;

  constructor(options: UpstreamHttpClientOptions) {
    this.#timeoutMs = options.timeoutMs;
    this.#userAgent = options.userAgent ?? 'Switchboard/0.1 (+provider)';
    this.#policy = options.policy ?? operatorUpstreamPolicy();
    this.#agent = new Agent({
      keepAliveTimeout: options.keepAliveMs ?? 4_000,
      // A server that announces a longer idle timeout (Keep-Alive: timeout=N) is believed, up to this.
      keepAliveMaxTimeout: options.keepAliveMaxMs ?? 600_000,
      connections: options.connections ?? null,
      ...(options.pipelining === undefined ? {} : { pipelining: options.pipelining }),
      connect: { timeout: options.connectTimeoutMs ?? Math.min(10_000, options.timeoutMs), lookup: this.#policy.connectLookup() },
    });
  }

  /** The pooled connections, for callers that stream on undici's `dispatch` API (chat). */
  get dispatcher(): Dispatcher {
    return this.#agent;
  }

  /** The policy's URL check (scheme, credentials, literal addresses); throws an OutboundUrlError. */
  checkUrl(url: string): URL {
    return this.#policy.assertAllowedUrl(url);
  }

  /** One exchange, read whole. Never throws for network trouble: a failure is a value. */
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
      this.#policy.assertAllowedUrl(req.url);
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
      return failedExchange(error, req, timedOut, timeoutMs);
    } finally {
      clearTimeout(timer);
      req.signal?.removeEventListener('abort', onCallerAbort);
    }
  }

  close(): Promise<void> {
    return this.#agent.close();
  }
}

function failedExchange(error: unknown, req: UpstreamRequest, timedOut: boolean, timeoutMs: number): HttpExchange {
  const transport = describeTransportError(error);
  const message = error instanceof Error ? error.message : String(error);
  let where = `${req.method} ${req.url}`;
  try {
    where = `${req.method} ${new URL(req.url).pathname}`;
  } catch {
    // not a URL: keep it as given
  }
  const maybeDelivered = !transport.notSent;
  if (req.signal?.aborted && !timedOut) {
    return { kind: 'no-response', maybeDelivered, error: { message: `${where}: cancelled by the caller`, retryable: true, code: 'network' } };
  }
  return {
    kind: 'no-response',
    maybeDelivered,
    error:
      timedOut || transport.timeout
        ? { message: `${where}: no answer within ${timeoutMs} ms`, retryable: true, code: 'timeout' }
        : { message: `${where}: ${transport.code ?? 'network error'}: ${message}`, retryable: true, code: 'network' },
  };
}

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

const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT', 'ETIMEDOUT']);

function isTlsSetupCode(code: string): boolean {
  return code.startsWith('ERR_TLS_') || code.startsWith('ERR_SSL_') || /CERT|SELF_SIGNED|UNABLE_TO_VERIFY/u.test(code);
}

/** The `code`s of an error and its causes, outermost first. */
function errorCodes(error: unknown): string[] {
  const codes: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current !== null && typeof current === 'object'; depth += 1) {
    if ('code' in current && typeof current.code === 'string') codes.push(current.code);
    current = 'cause' in current ? current.cause : undefined;
  }
  return codes;
}

export interface TransportErrorDescription {
  /** The first error code found (the error's own, or a cause's). */
  code: string | undefined;
  /** A connect, header or body time-out. */
  timeout: boolean;
  /** The request certainly never reached the upstream: another route may take it without reconciling. */
  notSent: boolean;
}

/** What a thrown transport error means for a retry (not our own deadline or abort: the caller knows those). */
export function describeTransportError(error: unknown): TransportErrorDescription {
  const codes = errorCodes(error);
  // A URL the policy refuses was never sent either.
  const refusedByPolicy = error instanceof OutboundUrlError;
  return {
    code: codes[0],
    timeout: codes.some((c) => TIMEOUT_CODES.has(c)),
    notSent: refusedByPolicy || codes.some((c) => NOT_SENT_CODES.has(c) || isTlsSetupCode(c)),
  };
}

type HeaderBag = Readonly<Record<string, string | string[] | undefined>>;

function headerValue(value: string | string[] | undefined): string | undefined {
  const first = Array.isArray(value) ? value[0] : value;
  const trimmed = first?.trim();
  return trimmed === '' ? undefined : trimmed;
}

const DECIMAL = /^\d+(?:\.\d+)?$/u;

/**
 * How long an upstream asks us to wait, in milliseconds: `retry-after-ms` (OpenAI's), else
 * `retry-after` as delay-seconds or an HTTP date (RFC 9110 §10.2.3; a past date is 0). Undefined when
 * neither says anything readable.
 */
export function retryAfterMs(headers: HeaderBag, now: number = Date.now()): number | undefined {
  const ms = headerValue(headers['retry-after-ms']);
  if (ms !== undefined && DECIMAL.test(ms)) return Number(ms);
  const raw = headerValue(headers['retry-after']);
  if (raw === undefined) return undefined;
  if (DECIMAL.test(raw)) return Number(raw) * 1000;
  // An HTTP date names a day and a month; a bare number that is not delay-seconds is not a date.
  const date = /[a-z]/iu.test(raw) ? Date.parse(raw) : Number.NaN;
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
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

  /** The chunks as they arrived (for a large answer read off the event loop), and their total size. */
  parts(): { parts: Buffer[]; size: number } {
    return { parts: this.#chunks, size: this.#size };
  }

  text(): string {
    const chunks = this.#chunks;
    if (chunks.length === 1) return (chunks[0] as Buffer).toString('utf8');
    return Buffer.concat(chunks, this.#size).toString('utf8');
  }
}
