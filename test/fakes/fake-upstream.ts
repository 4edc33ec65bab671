/**
 * What the fake chat upstreams share: a real HTTP server on 127.0.0.1 (random port), the recording of
 * every request, a queue of scripted behaviours, and an SSE writer that can delay, fragment and cut.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';

/** One scripted answer. Unset fields take realistic defaults. */
export interface FakeChatScript {
  /** The answer text; default `Hello from the fake upstream.` (none when tool calls are given). */
  text?: string;
  toolCalls?: Array<{ id?: string; name: string; arguments: Record<string, unknown> | string }>;
  /** Reasoning before the answer (Anthropic thinking with a signature, OpenAI-style reasoning_content). */
  reasoning?: string;
  /** The vendor's own stop/finish reason; default from the content. */
  stopReason?: string;
  /**
   * What to report as usage; token defaults are derived from the request and the answer. `cacheCreation`
   * counts every cache write, `cacheCreation1h` the part written with a one-hour lifetime (Anthropic's
   * `cache_creation.ephemeral_1h_input_tokens`); `webSearches`/`webFetches` are Anthropic's
   * `server_tool_use`; `serviceTier` the tier the vendor reports (OpenAI's response `service_tier`,
   * Anthropic's `usage.service_tier`), by default the one asked for or the standard one.
   */
  usage?: {
    input?: number;
    output?: number;
    cached?: number;
    cacheCreation?: number;
    cacheCreation1h?: number;
    webSearches?: number;
    webFetches?: number;
    serviceTier?: string;
    /**
     * Reasoning tokens counted in `total_tokens` but not in `completion_tokens`, as Gemini's
     * OpenAI-compatible endpoint reports its thoughts (OpenAI fake only; see GEMINI_THINKING_USAGE).
     */
    thoughtsOutsideCompletion?: number;
  };
  /** Report no usage at all (the vendor still bills it: see `RecordedRequest.billed`). */
  omitUsage?: boolean;
  /**
   * Output tokens the vendor spends on reasoning it does not stream (OpenAI's reasoning models,
   * Claude's summarised thinking): reported as part of the output tokens (and as reasoning tokens
   * where the protocol has the field), generated before the first frame, so billed even when the
   * stream is cut after it.
   */
  hiddenReasoningTokens?: number;
  /**
   * Fields laid over the vendor's usage object as they are, to report what a broken upstream reports
   * (`{ prompt_tokens: 20.5 }`, `{ completion_tokens: 'NaN' }`, `{ input_tokens: null }`).
   */
  rawUsage?: Record<string, unknown>;
  /** Answer with this HTTP error instead (body in the vendor's shape unless `body` is given). */
  error?: { status: number; message?: string; type?: string; body?: unknown; retryAfter?: number | string };
  /** Wait this long before the status line (the first byte). */
  delayMs?: number;
  /** Wait between SSE frames (default: only yield to the event loop, so frames go out separately). */
  chunkDelayMs?: number;
  /** Destroy the connection after this many SSE frames. */
  cutAfterChunks?: number;
  /** Send the vendor's in-stream error event after this many frames, then end the response. */
  errorAfterChunks?: { chunks: number; message?: string; type?: string };
  /** Split every frame across several writes at odd byte offsets (tests the client's SSE parser). */
  fragment?: boolean;
  /** Top-level request fields to refuse, as the vendor refuses an unknown argument. */
  rejectFields?: string[];
  id?: string;
  /** The model name to report; default the requested one. */
  model?: string;
}

export type ExchangeOutcome = 'completed' | 'aborted' | 'cut';

/**
 * What the vendor bills for one request, in canonical terms: `inputTokens` is every prompt token
 * (cache reads and writes included, as OpenAI counts them), `cachedInputTokens` and
 * `cacheCreationTokens` parts of it.
 */
export interface FakeBill {
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
  cacheCreationTokens: number;
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body (undefined when it was not JSON). */
  body: unknown;
  /** The client's port: equal ports on two requests mean a reused keep-alive connection. */
  remotePort: number;
  /** Settles when the exchange ends: the response finished, the client closed first, or the fake cut it. */
  outcome: Promise<ExchangeOutcome>;
  /**
   * What the vendor billed, once it stopped generating (undefined: nothing, an error answer). Billing
   * does not depend on reporting (`omitUsage`) nor on the client reading: a whole answer is generated
   * and billed in full even if the client left meanwhile (the vendor notices nothing until it writes);
   * a stream is billed for what was generated until the vendor noticed the closed connection, at its
   * next frame (billForFrames).
   */
  billed: Promise<FakeBill | undefined>;
}

export interface FakeExchange {
  req: IncomingMessage;
  res: ServerResponse;
  record: RecordedRequest;
  script: FakeChatScript;
  /** Marks that the fake cut the connection on purpose. */
  markCut(): void;
  /** Records what the vendor bills for this exchange (the last call wins); unbilled without a call. */
  bill(usage: FakeBill): void;
}

export class FakeUpstreamServer {
  readonly requests: RecordedRequest[] = [];
  /** Exchanges open now (request received, response not closed), and the most seen at once since the last reset. */
  openNow = 0;
  peakOpen = 0;
  #queue: FakeChatScript[] = [];
  #default: FakeChatScript = {};
  #responder: ((body: unknown) => FakeChatScript | undefined) | undefined;
  #server: Server;
  #port = 0;

  constructor(handle: (exchange: FakeExchange) => Promise<void>) {
    this.#server = createServer((req, res) => {
      void this.#accept(req, res, handle);
    });
    // Keep-alive like the vendors' front ends, so that connection reuse can be observed.
    this.#server.keepAliveTimeout = 10_000;
  }

  async listen(): Promise<void> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    this.#port = (this.#server.address() as AddressInfo).port;
  }

  get origin(): string {
    return `http://127.0.0.1:${this.#port}`;
  }

  /** Scripts for the next requests, in order; after them the default applies. */
  enqueue(...scripts: FakeChatScript[]): void {
    this.#queue.push(...scripts);
  }

  setDefault(script: FakeChatScript): void {
    this.#default = script;
  }

  /**
   * Answers from a function of the request body (a script per conversation, say); when it returns
   * undefined, the queue and the default apply as usual.
   */
  respondWith(responder: ((body: unknown) => FakeChatScript | undefined) | undefined): void {
    this.#responder = responder;
  }

  reset(): void {
    this.#queue = [];
    this.#default = {};
    this.requests.length = 0;
    this.peakOpen = this.openNow;
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  async #accept(req: IncomingMessage, res: ServerResponse, handle: (exchange: FakeExchange) => Promise<void>): Promise<void> {
    this.openNow += 1;
    this.peakOpen = Math.max(this.peakOpen, this.openNow);
    res.once('close', () => (this.openNow -= 1));
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    let body: unknown;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      body = undefined;
    }
    let cut = false;
    let bill: FakeBill | undefined;
    let resolveBilled: (bill: FakeBill | undefined) => void = () => {};
    const billed = new Promise<FakeBill | undefined>((resolve) => (resolveBilled = resolve));
    const outcome = new Promise<ExchangeOutcome>((resolve) => {
      res.on('close', () => resolve(cut ? 'cut' : res.writableFinished ? 'completed' : 'aborted'));
    });
    const record: RecordedRequest = {
      method: req.method ?? '',
      path: req.url ?? '',
      headers: req.headers,
      body,
      remotePort: req.socket.remotePort ?? 0,
      outcome,
      billed,
    };
    this.requests.push(record);
    const script = this.#responder?.(body) ?? this.#queue.shift() ?? this.#default;
    try {
      if (script.delayMs) await sleep(script.delayMs);
      await handle({ req, res, record, script, markCut: () => (cut = true), bill: (usage) => (bill = usage) });
    } catch (error) {
      if (!res.headersSent) sendJson(res, 500, { error: { message: String(error) } });
      else res.destroy();
    } finally {
      resolveBilled(bill);
    }
  }
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/**
 * Writes SSE frames one by one, honouring the script's pacing, fragmentation and cut; returns how
 * many frames were written before the stream ended (all of them, unless the client closed the
 * connection, which the fake notices at its next frame as a vendor does, or the script cut it).
 */
export async function writeSse(exchange: FakeExchange, frames: string[]): Promise<number> {
  const { res, script } = exchange;
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
  res.flushHeaders();
  for (let i = 0; i < frames.length; i++) {
    if (res.destroyed) return i;
    if (script.cutAfterChunks !== undefined && i >= script.cutAfterChunks) {
      exchange.markCut();
      res.socket?.destroy();
      return i;
    }
    const bytes = Buffer.from(frames[i]!, 'utf8');
    if (script.fragment && bytes.length > 4) {
      // Odd offsets land inside multi-byte characters and between "data:" and its value.
      const cuts = [3, Math.floor(bytes.length / 2) + 1];
      res.write(bytes.subarray(0, cuts[0]));
      await nextTurn();
      res.write(bytes.subarray(cuts[0], cuts[1]));
      await nextTurn();
      res.write(bytes.subarray(cuts[1]));
    } else res.write(bytes);
    if (script.chunkDelayMs) await sleep(script.chunkDelayMs);
    else await nextTurn();
  }
  res.end();
  return frames.length;
}

/**
 * What a stream stopped after `written` of its `total` frames is billed: the whole prompt (it was
 * read before the first frame), the hidden reasoning (spent before the first frame), and the visible
 * output pro rata of the frames written (the tokens generated until the vendor noticed the cancel).
 * A stream written to its end is billed in full.
 */
export function billForFrames(full: FakeBill, hiddenReasoningTokens: number, written: number, total: number): FakeBill {
  if (written >= total) return full;
  const visible = Math.max(0, full.outputTokens - hiddenReasoningTokens);
  return { ...full, outputTokens: hiddenReasoningTokens + Math.ceil((visible * written) / total) };
}

/** Splits text into stream pieces of one or two words, as vendors chunk tokens. */
export function textPieces(text: string): string[] {
  const words = text.match(/\s*\S+\s*/g) ?? [];
  const pieces: string[] = [];
  for (let i = 0; i < words.length; i += 2) pieces.push(words.slice(i, i + 2).join(''));
  return pieces;
}

/** Splits a JSON text into pieces of at most `size` characters. */
export function jsonPieces(json: string, size = 8): string[] {
  const pieces: string[] = [];
  for (let at = 0; at < json.length; at += size) pieces.push(json.slice(at, at + size));
  return pieces;
}

/** A deterministic token count for fakes: about one token per four bytes, at least one. */
export function fakeTokens(value: unknown): number {
  return Math.max(1, Math.ceil(Buffer.byteLength(JSON.stringify(value ?? ''), 'utf8') / 4));
}

export function argumentsText(args: Record<string, unknown> | string): string {
  return typeof args === 'string' ? args : JSON.stringify(args);
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
