import { lookup as systemLookup } from 'node:dns/promises';
import type { IncomingHttpHeaders } from 'node:http';
import { isIP, type LookupFunction } from 'node:net';
import { Agent } from 'undici';
import { classifyAddress, parseIPv6 } from './ip-ranges.ts';
import { type OutboundFailure, OutboundUrlError } from './outbound-url-error.ts';
import { assertPublicUrl, hostLiteral, isLocalhostName } from './url-policy.ts';

/**
 * The one way to call a URL a user gave us (webhooks, media to measure, links): DESIGN decision 9.
 *
 * Every hop: http(s) only, no credentials in the URL; the name resolved once and every address
 * checked (one refused address refuses the host); the socket opened to those vetted addresses by
 * an undici Agent whose `connect.lookup` returns them and never asks DNS again, so a name cannot
 * resolve to a public address for the check and a private one for the connection (DNS rebinding).
 * TLS still verifies the certificate for, and sends SNI and Host with, the original name.
 *
 * Bounded: a deadline for the whole exchange including DNS and redirects, a connect timeout, and
 * a body limit that aborts the download as soon as it is passed. Redirects are followed by hand
 * (each hop re-checked) up to `maxRedirects`; with 0 the 3xx response is returned as it is.
 * No cookie jar, no proxy from the environment, no decompression; Authorization and Cookie headers
 * are dropped when a redirect leaves the origin.
 */

export type GuardedMethod = 'GET' | 'POST' | 'HEAD';

export interface GuardedRequest {
  url: string;
  method?: GuardedMethod;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Deadline of the whole exchange (DNS, connect, redirects, body), in milliseconds. */
  timeoutMs: number;
  /** Largest body accepted; a larger one aborts the transfer with `too_large`. */
  maxBytes: number;
  /** Overrides the client's limit for this request; 0 returns a 3xx instead of following it. */
  maxRedirects?: number;
}

export interface GuardedResponse {
  status: number;
  /** Lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  body: Buffer;
  /** The URL that answered, after redirects. */
  finalUrl: string;
}

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Name resolution; by default the system resolver (getaddrinfo, so /etc/hosts counts). */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export interface GuardedHttpClientOptions {
  /** SWITCHBOARD_ALLOW_PRIVATE_URLS=1: loopback, private, link-local and similar become reachable. */
  allowPrivate: boolean;
  userAgent?: string;
  /** Exact addresses reachable although not public (say, one internal webhook receiver). */
  allowAddresses?: readonly string[];
  /** Default 5,000 ms (never more than what is left of the request's deadline). */
  connectTimeoutMs?: number;
  /** Default 3. */
  maxRedirects?: number;
  resolve?: Resolver;
  /** Extra trusted CA certificates (PEM), for endpoints behind a private CA. */
  ca?: string | readonly string[];
}

const DEFAULT_USER_AGENT = 'Switchboard/0.1 (+outbound)';
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** Headers the client sets itself or that describe one connection; callers cannot set them. */
const MANAGED_HEADERS = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive', 'upgrade', 'te', 'trailer', 'expect']);
const CREDENTIAL_HEADERS = ['authorization', 'cookie', 'proxy-authorization'];

const defaultResolver: Resolver = async (hostname) => {
  const found = await systemLookup(hostname, { all: true, order: 'verbatim' });
  return found.map((entry) => ({ address: entry.address, family: entry.family === 6 ? 6 : 4 }));
};

/** A key that is the same for every spelling of one address. */
function addressKey(address: string): string {
  const bytes = isIP(address) === 6 ? parseIPv6(address) : undefined;
  return bytes ? Buffer.from(bytes).toString('hex') : address;
}

function pinnedLookup(addresses: readonly ResolvedAddress[]): LookupFunction {
  return (_hostname, options, callback) => {
    const usable = options.family === 4 || options.family === 6 ? addresses.filter((a) => a.family === options.family) : addresses;
    if (usable.length === 0) {
      const error: NodeJS.ErrnoException = new Error('no vetted address of the requested family');
      error.code = 'ENOTFOUND';
      callback(error, '', 0);
      return;
    }
    if (options.all) callback(null, usable.map((a) => ({ address: a.address, family: a.family })));
    else callback(null, (usable[0] as ResolvedAddress).address, (usable[0] as ResolvedAddress).family);
  };
}

function flattenHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

function errorCode(error: unknown): string | undefined {
  if (error !== null && typeof error === 'object' && 'code' in error && typeof error.code === 'string') return error.code;
  return undefined;
}

const MAX_POOLED_AGENTS = 64;

/**
 * A name that does not resolve and a name that resolves only to refused addresses get the same
 * answer (a `dns` failure, retried like one): a webhook's lastError or a probe's 400 must not tell a
 * user what an internal name resolves to, nor even that it exists.
 */
function unresolvable(host: string, url: string, cause: unknown): OutboundUrlError {
  return new OutboundUrlError('dns', `the host ${host} does not resolve to a public address`, url, { cause });
}

export class GuardedHttpClient {
  readonly #allowPrivate: boolean;
  readonly #userAgent: string;
  readonly #allowAddresses: Set<string>;
  readonly #connectTimeoutMs: number;
  readonly #agents = new Map<string, Agent>();
  readonly #maxRedirects: number;
  readonly #resolve: Resolver;
  readonly #ca: string | readonly string[] | undefined;

  constructor(options: GuardedHttpClientOptions) {
    this.#allowPrivate = options.allowPrivate;
    this.#userAgent = options.userAgent ?? DEFAULT_USER_AGENT;
    this.#allowAddresses = new Set((options.allowAddresses ?? []).map(addressKey));
    this.#connectTimeoutMs = options.connectTimeoutMs ?? 5_000;
    this.#maxRedirects = options.maxRedirects ?? 3;
    this.#resolve = options.resolve ?? defaultResolver;
    this.#ca = options.ca;
  }

  /** Whether the client may connect to this address. */
  isAllowedAddress(address: string): boolean {
    if (this.#allowAddresses.has(addressKey(address))) return true;
    const verdict = classifyAddress(address);
    return verdict.allowed || (this.#allowPrivate && verdict.kind === 'private');
  }

  /**
   * The URL checks of one hop, for callers that keep their own connection pool (the provider client):
   * http(s), no credentials, and a literal address only when allowed. Throws an OutboundUrlError.
   */
  assertAllowedUrl(url: string): URL {
    return this.#checkUrl(url);
  }

  /**
   * The address policy as a socket `lookup`, for a long-lived pool (the provider client's undici
   * Agent): each new connection resolves the name once and connects only when every address is
   * allowed, to those addresses. A refused name fails like one that does not resolve (`ENOTFOUND`).
   * Literal addresses never reach a lookup: check the URL with `assertAllowedUrl` first.
   */
  connectLookup(): LookupFunction {
    return (hostname, options, callback) => {
      this.#resolve(hostname).then(
        (found) => {
          const refused = found.length === 0 || found.some((entry) => !this.isAllowedAddress(entry.address));
          if (!refused) {
            pinnedLookup(found)(hostname, options, callback);
            return;
          }
          const error: NodeJS.ErrnoException = new Error(`the host ${hostname} does not resolve to an allowed address`);
          error.code = 'ENOTFOUND';
          callback(error, '', 0);
        },
        (error: NodeJS.ErrnoException) => callback(error, '', 0),
      );
    };
  }

  async request(req: GuardedRequest): Promise<GuardedResponse> {
    if (!(req.timeoutMs > 0) || !(req.maxBytes >= 0)) throw new RangeError('timeoutMs must be positive and maxBytes non-negative');
    const deadline = Date.now() + req.timeoutMs;
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), req.timeoutMs);
    const maxRedirects = req.maxRedirects ?? this.#maxRedirects;
    let url = req.url;
    let method: GuardedMethod = req.method ?? 'GET';
    let body = req.body;
    let headers = this.#initialHeaders(req.headers);
    try {
      for (let hop = 0; ; hop += 1) {
        const target = this.#checkUrl(url);
        const addresses = await this.#vettedAddresses(target, url, controller.signal);
        const response = await this.#send(target, addresses, { method, headers, body, deadline, maxBytes: req.maxBytes, signal: controller.signal }, url);
        const location = response.headers.location;
        if (!REDIRECT_STATUSES.has(response.status) || maxRedirects === 0 || location === undefined) {
          return { ...response, finalUrl: target.href };
        }
        if (hop >= maxRedirects) {
          throw new OutboundUrlError('redirects', `more than ${maxRedirects} redirects`, req.url);
        }
        let next: URL;
        try {
          next = new URL(location, target);
        } catch {
          throw new OutboundUrlError('redirects', `the redirect target ${JSON.stringify(location)} is not a URL`, url);
        }
        if (next.origin !== target.origin) headers = Object.fromEntries(Object.entries(headers).filter(([name]) => !CREDENTIAL_HEADERS.includes(name)));
        if (response.status === 303 || ((response.status === 301 || response.status === 302) && method === 'POST')) {
          if (method !== 'HEAD') method = 'GET';
          body = undefined;
          headers = Object.fromEntries(Object.entries(headers).filter(([name]) => name !== 'content-type'));
        }
        next.hash = '';
        url = next.href;
      }
    } catch (error) {
      if (error instanceof OutboundUrlError) throw error;
      // A header value with a line break and the like: the caller's bug, not the remote's.
      if (errorCode(error) === 'UND_ERR_INVALID_ARG') throw error;
      if (controller.signal.aborted) throw new OutboundUrlError('timeout', `no complete answer within ${req.timeoutMs} ms`, url, { cause: error });
      throw this.#toOutboundError(error, url);
    } finally {
      clearTimeout(timer);
    }
  }

  #initialHeaders(given: Record<string, string> | undefined): Record<string, string> {
    const headers: Record<string, string> = { 'user-agent': this.#userAgent, accept: '*/*' };
    for (const [name, value] of Object.entries(given ?? {})) {
      const key = name.toLowerCase();
      if (!MANAGED_HEADERS.has(key)) headers[key] = value;
    }
    return headers;
  }

  #checkUrl(url: string): URL {
    // The literal-address rule is applied below with the allow list; here scheme and form only.
    const parsed = assertPublicUrl(url, true);
    const host = hostLiteral(parsed);
    if (isIP(host) !== 0 && !this.isAllowedAddress(host)) {
      const verdict = classifyAddress(host);
      throw new OutboundUrlError('private_address', `the address ${host} is not allowed: ${verdict.allowed ? 'not listed' : verdict.range}`, url);
    }
    if (isIP(host) === 0 && !this.#allowPrivate && isLocalhostName(host)) {
      throw new OutboundUrlError('private_address', `the host ${host} is this machine`, url);
    }
    parsed.hash = '';
    return parsed;
  }

  async #vettedAddresses(target: URL, url: string, signal: AbortSignal): Promise<ResolvedAddress[]> {
    const host = hostLiteral(target);
    const family = isIP(host);
    if (family !== 0) return [{ address: host, family: family === 6 ? 6 : 4 }];
    let found: ResolvedAddress[];
    try {
      found = await Promise.race([
        this.#resolve(host),
        new Promise<never>((_, reject) => {
          if (signal.aborted) reject(signal.reason);
          signal.addEventListener('abort', () => reject(signal.reason), { once: true });
        }),
      ]);
    } catch (error) {
      if (signal.aborted) throw error;
      throw unresolvable(host, url, error);
    }
    if (found.length === 0) throw unresolvable(host, url, new Error('no addresses'));
    for (const entry of found) {
      if (!this.isAllowedAddress(entry.address)) {
        const verdict = classifyAddress(entry.address);
        const why = verdict.allowed ? 'not listed' : verdict.range;
        // What an internal name resolves to stays in the cause (for logs), out of the message.
        throw unresolvable(host, url, new Error(`${host} resolves to ${entry.address}, which is not allowed: ${why}`));
      }
    }
    return found;
  }

  async #send(
    target: URL,
    addresses: ResolvedAddress[],
    exchange: { method: GuardedMethod; headers: Record<string, string>; body: string | Buffer | undefined; deadline: number; maxBytes: number; signal: AbortSignal },
    url: string,
  ): Promise<Omit<GuardedResponse, 'finalUrl'>> {
    const remaining = Math.max(1, exchange.deadline - Date.now());
    const agent = this.#agentFor(target.origin, addresses);
    try {
      const response = await agent.request({
        origin: target.origin,
        path: `${target.pathname}${target.search}`,
        method: exchange.method,
        headers: exchange.headers,
        body: exchange.body ?? null,
        signal: exchange.signal,
        headersTimeout: remaining,
        bodyTimeout: remaining,
      });
      const headers = flattenHeaders(response.headers);
      const declared = Number(headers['content-length']);
      if (Number.isFinite(declared) && declared > exchange.maxBytes) {
        // Destroying an unread body emits an abort error; nobody is listening for it but us.
        response.body.on('error', () => undefined);
        response.body.destroy();
        throw new OutboundUrlError('too_large', `the response declares ${declared} bytes, more than the limit of ${exchange.maxBytes}`, url);
      }
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of response.body) {
        const bytes = chunk as Buffer;
        size += bytes.length;
        if (size > exchange.maxBytes) {
          response.body.destroy();
          throw new OutboundUrlError('too_large', `the response is larger than the limit of ${exchange.maxBytes} bytes`, url);
        }
        chunks.push(bytes);
      }
      return { status: response.statusCode, headers, body: Buffer.concat(chunks, size) };
    } catch (error) {
      // A connection that failed mid-exchange is not worth keeping.
      this.#dropAgent(target.origin, addresses);
      throw error;
    }
  }

  /**
   * Connections are reused per origin and per vetted address set: the agent only ever connects to the
   * addresses checked for this request (a new DNS answer gives a new key, so pinning still holds), and
   * repeated downloads from one upstream (result files) skip a TCP and TLS handshake each.
   */
  #agentFor(origin: string, addresses: ResolvedAddress[]): Agent {
    const key = `${origin}|${addresses.map((a) => a.address).join(',')}`;
    const known = this.#agents.get(key);
    if (known) {
      // Most recently used last, so the first entry is the one to drop.
      this.#agents.delete(key);
      this.#agents.set(key, known);
      return known;
    }
    if (this.#agents.size >= MAX_POOLED_AGENTS) {
      const [oldestKey, oldest] = this.#agents.entries().next().value ?? [];
      if (oldestKey !== undefined) this.#agents.delete(oldestKey);
      oldest?.close().catch(() => undefined);
    }
    const agent = new Agent({
      connect: {
        lookup: pinnedLookup(addresses),
        timeout: this.#connectTimeoutMs,
        ...(this.#ca === undefined ? {} : { ca: typeof this.#ca === 'string' ? this.#ca : [...this.#ca] }),
      },
      allowH2: false,
      keepAliveTimeout: 4_000,
    });
    this.#agents.set(key, agent);
    return agent;
  }

  #dropAgent(origin: string, addresses: ResolvedAddress[]): void {
    const key = `${origin}|${addresses.map((a) => a.address).join(',')}`;
    const agent = this.#agents.get(key);
    if (!agent) return;
    this.#agents.delete(key);
    agent.destroy().catch(() => undefined);
  }

  /** Closes pooled connections (at shutdown). */
  async close(): Promise<void> {
    const agents = [...this.#agents.values()];
    this.#agents.clear();
    await Promise.all(agents.map((a) => a.destroy().catch(() => undefined)));
  }

  #toOutboundError(error: unknown, url: string): OutboundUrlError {
    const code = errorCode(error) ?? '';
    const message = error instanceof Error ? error.message : String(error);
    let reason: OutboundFailure = 'http';
    if (code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || code === 'ETIMEDOUT') {
      reason = 'timeout';
    } else if (
      ['ECONNREFUSED', 'ECONNRESET', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL', 'EPIPE', 'ENOTFOUND'].includes(code) ||
      code.startsWith('ERR_TLS_') ||
      code.startsWith('ERR_SSL_') ||
      /CERT|SELF_SIGNED|UNABLE_TO_VERIFY/u.test(code)
    ) {
      reason = 'connect';
    }
    return new OutboundUrlError(reason, `${reason === 'http' ? 'broken response' : reason}: ${message}`, url, { cause: error });
  }
}
