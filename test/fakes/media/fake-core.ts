/**
 * What every fake upstream shares: a real HTTP server on 127.0.0.1 (random port), a record of every
 * request, jobs whose status follows a scripted timeline, callbacks posted at each terminal moment,
 * and tiny real result files rendered once per process and served from `/files/…`.
 *
 * Scripting a job: `fake.script(behaviour)` queues a behaviour for the next submit (`{times, match}`
 * narrow it); anything unscripted gets `fake.defaultBehaviour`. Behaviours:
 * - `completeAfterMs` (default 30): from acceptance to the final state (half queued, half running);
 * - `instant`: final at once (and, where the API allows, in the submit answer itself);
 * - `acceptThenFail`: accept, then report failure (poll and callback);
 * - `failOnSubmit: {status, body}`: refuse the submit with that answer, create nothing;
 * - `hangOnSubmit`: read the request, create the job, never answer (the client times out);
 * - `lateSuccessAfterMs`: report failure at `completeAfterMs`, then success from this time on, with a
 *   second callback;
 * - `noCallback`: do not call back;
 * - `result: {kind, count}`: what the job produces (default: guessed from the model).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { renderAudio } from '../../../src/providers/local/render/render-audio.ts';
import { renderImage } from '../../../src/providers/local/render/render-image.ts';
import { renderVideo } from '../../../src/providers/local/render/render-video.ts';

export type ResultKind = 'image' | 'video' | 'audio';

export interface FakeBehaviour {
  completeAfterMs?: number;
  instant?: boolean;
  acceptThenFail?: boolean | { message?: string; code?: string | number };
  failOnSubmit?: { status: number; body: unknown; headers?: Record<string, string> };
  hangOnSubmit?: boolean;
  lateSuccessAfterMs?: number;
  noCallback?: boolean;
  result?: { kind?: ResultKind; count?: number };
}

export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  body: Buffer;
  /** The body parsed as JSON, when it is JSON. */
  json: unknown;
  at: number;
}

export interface DeliveredCallback {
  url: string;
  jobId: string;
  phase: JobPhase;
  body: unknown;
  headers: Record<string, string>;
  status: number | 'error';
}

export type JobPhase = 'queued' | 'running' | 'succeeded' | 'failed' | 'canceled';

export interface FakeJob<Meta = Record<string, unknown>> {
  id: string;
  createdAt: number;
  behaviour: FakeBehaviour;
  kind: ResultKind;
  count: number;
  callbackUrl: string | undefined;
  canceledAt?: number;
  /** Vendor-specific data (model, input, …). */
  meta: Meta;
}

export interface FakeAssets {
  png: Buffer;
  jpg: Buffer;
  mp4: Buffer;
  mp3: Buffer;
  wav: Buffer;
}

let assets: Promise<FakeAssets> | undefined;

/** The files every fake serves, rendered once per process (about a second, mostly ffmpeg). */
export function fakeAssets(): Promise<FakeAssets> {
  assets ??= (async () => {
    const [png, jpg, mp4, mp3, wav] = await Promise.all([
      renderImage({ prompt: 'fake upstream', seed: 7, width: 64, height: 64, format: 'png' }),
      renderImage({ prompt: 'fake cover', seed: 8, width: 64, height: 64, format: 'jpeg' }),
      renderVideo({ prompt: 'fake upstream', seed: 9, width: 64, height: 64, durationS: 1, fps: 8, withAudio: true, format: 'mp4' }),
      renderAudio({ seed: 10, durationS: 1, format: 'mp3' }),
      renderAudio({ seed: 11, durationS: 1, format: 'wav' }),
    ]);
    return { png, jpg, mp4, mp3, wav };
  })();
  return assets;
}

const FILE_TYPES: Readonly<Record<string, { key: keyof FakeAssets; type: string }>> = {
  png: { key: 'png', type: 'image/png' },
  jpg: { key: 'jpg', type: 'image/jpeg' },
  mp4: { key: 'mp4', type: 'video/mp4' },
  mp3: { key: 'mp3', type: 'audio/mpeg' },
  wav: { key: 'wav', type: 'audio/wav' },
};

export const EXTENSION: Readonly<Record<ResultKind, string>> = { image: 'png', video: 'mp4', audio: 'mp3' };

/** What a model name suggests it makes. */
export function guessKind(model: string): ResultKind {
  const m = model.toLowerCase();
  if (/suno|music|audio|lyria|tts|sound/u.test(m)) return 'audio';
  if (/video|sora|veo|seedance|kling|pixverse|motion|wan\/2-7(?!-image)|wan\/3-0|hailuo|luma|runway/u.test(m)) return 'video';
  return 'image';
}

export interface ScriptOptions {
  /** How many submits it applies to (default 1; Infinity for all). */
  times?: number;
  /** Only submits this matches. */
  match?: (request: RecordedRequest) => boolean;
}

interface ScriptRule {
  behaviour: FakeBehaviour;
  left: number;
  match: ((request: RecordedRequest) => boolean) | undefined;
}

export interface FakeReply {
  json(status: number, body: unknown, headers?: Record<string, string>): void;
  raw(status: number, body: Buffer, headers: Record<string, string>): void;
  /** Never answer (the socket stays open until the client gives up or the fake closes). */
  hang(): void;
}

export type FakeHandler = (request: RecordedRequest, reply: FakeReply) => void | Promise<void>;

export interface FakeUpstreamOptions {
  /** Keep every request in `requests` (default true; turn off for benchmarks). */
  record?: boolean;
  /** Post callbacks (default true). */
  callbacks?: boolean;
}

export class FakeUpstream<Meta = Record<string, unknown>> {
  readonly requests: RecordedRequest[] = [];
  readonly callbacks: DeliveredCallback[] = [];
  readonly jobs = new Map<string, FakeJob<Meta>>();
  defaultBehaviour: FakeBehaviour = {};
  url = '';
  #server: Server;
  #rules: ScriptRule[] = [];
  #record: boolean;
  #callbacksOn: boolean;
  #timers = new Set<NodeJS.Timeout>();
  #hung = new Set<ServerResponse>();
  #assets: FakeAssets | undefined;
  #handler: FakeHandler;
  /** Builds a vendor's callback for a job at a terminal phase; undefined sends nothing. */
  callbackFor: (job: FakeJob<Meta>, phase: JobPhase) => { body: unknown; headers?: Record<string, string> } | undefined = () => undefined;

  constructor(handler: FakeHandler, options: FakeUpstreamOptions = {}) {
    this.#handler = handler;
    this.#record = options.record ?? true;
    this.#callbacksOn = options.callbacks ?? true;
    this.#server = createServer((req, res) => this.#serve(req, res));
    this.#server.keepAliveTimeout = 5_000;
  }

  async listen(): Promise<void> {
    this.#assets = await fakeAssets();
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  get assets(): FakeAssets {
    if (!this.#assets) throw new Error('the fake is not listening');
    return this.#assets;
  }

  /** Queues a behaviour for the next matching submits. */
  script(behaviour: FakeBehaviour, options: ScriptOptions = {}): void {
    this.#rules.push({ behaviour, left: options.times ?? 1, match: options.match });
  }

  /** The behaviour of a submit: the first matching scripted rule, else the default. */
  takeBehaviour(request: RecordedRequest): FakeBehaviour {
    for (const rule of this.#rules) {
      if (rule.left <= 0 || (rule.match && !rule.match(request))) continue;
      rule.left -= 1;
      if (rule.left <= 0) this.#rules = this.#rules.filter((r) => r !== rule);
      return rule.behaviour;
    }
    return this.defaultBehaviour;
  }

  requestsTo(method: string, pathPrefix: string): RecordedRequest[] {
    return this.requests.filter((r) => r.method === method && r.path.startsWith(pathPrefix));
  }

  /** The JSON object body of the last request to exactly this path (throws when there is none). */
  lastJson(method: string, path: string): Record<string, unknown> {
    const found = this.requests.filter((r) => r.method === method && r.path === path).at(-1);
    if (!found || found.json === null || typeof found.json !== 'object' || Array.isArray(found.json)) throw new Error(`no JSON ${method} ${path} recorded`);
    return found.json as Record<string, unknown>;
  }

  /** Creates a job and schedules its callbacks. */
  createJob(init: { id: string; behaviour: FakeBehaviour; kind: ResultKind; count?: number; callbackUrl: string | undefined; meta: Meta }): FakeJob<Meta> {
    const job: FakeJob<Meta> = {
      id: init.id,
      createdAt: Date.now(),
      behaviour: init.behaviour,
      kind: init.behaviour.result?.kind ?? init.kind,
      count: init.behaviour.result?.count ?? init.count ?? 1,
      callbackUrl: init.callbackUrl,
      meta: init.meta,
    };
    this.jobs.set(job.id, job);
    if (job.callbackUrl && this.#callbacksOn && !job.behaviour.noCallback) {
      const done = job.behaviour.instant ? 0 : (job.behaviour.completeAfterMs ?? 30);
      this.#later(done, () => this.#callBack(job));
      const late = job.behaviour.lateSuccessAfterMs;
      if (late !== undefined) this.#later(late, () => this.#callBack(job));
    }
    return job;
  }

  cancel(job: FakeJob<Meta>): void {
    job.canceledAt ??= Date.now();
  }

  phase(job: FakeJob<Meta>, now = Date.now()): JobPhase {
    const b = job.behaviour;
    if (job.canceledAt !== undefined && !this.#isFinalAt(job, job.canceledAt)) return 'canceled';
    const t = now - job.createdAt;
    const done = b.instant ? 0 : (b.completeAfterMs ?? 30);
    if (t < done) return t < done / 2 ? 'queued' : 'running';
    if (b.lateSuccessAfterMs !== undefined) return t < b.lateSuccessAfterMs ? 'failed' : 'succeeded';
    return b.acceptThenFail ? 'failed' : 'succeeded';
  }

  #isFinalAt(job: FakeJob<Meta>, at: number): boolean {
    const phase = this.phase({ ...job, canceledAt: undefined }, at);
    return phase === 'succeeded' || phase === 'failed';
  }

  /** The failure a behaviour asks for, with defaults. */
  failureOf(job: FakeJob<Meta>): { message: string; code: string | number | undefined } {
    const f = job.behaviour.acceptThenFail;
    const given = typeof f === 'object' ? f : {};
    return { message: given.message ?? 'the generation failed', code: given.code };
  }

  /** URLs of a job's result files. */
  fileUrls(job: FakeJob<Meta>, kind: ResultKind = job.kind, count = job.count): string[] {
    return Array.from({ length: count }, (_, i) => `${this.url}/files/${job.id}/${i}.${EXTENSION[kind]}`);
  }

  fileUrl(job: FakeJob<Meta>, name: string): string {
    return `${this.url}/files/${job.id}/${name}`;
  }

  #later(ms: number, fn: () => void): void {
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      fn();
    }, ms);
    this.#timers.add(timer);
  }

  async #callBack(job: FakeJob<Meta>): Promise<void> {
    const phase = this.phase(job, Date.now() + 1);
    const made = this.callbackFor(job, phase);
    if (!made || !job.callbackUrl) return;
    const text = JSON.stringify(made.body);
    const headers = { 'content-type': 'application/json', ...made.headers };
    let status: number | 'error' = 'error';
    try {
      const response = await fetch(job.callbackUrl, { method: 'POST', headers, body: text, signal: AbortSignal.timeout(5_000) });
      status = response.status;
      await response.arrayBuffer();
    } catch {
      // the receiver is gone: nothing to do
    }
    if (this.#record) this.callbacks.push({ url: job.callbackUrl, jobId: job.id, phase, body: made.body, headers, status });
  }

  #serve(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://fake');
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : v;
      const body = Buffer.concat(chunks);
      let json: unknown;
      if ((headers['content-type'] ?? '').includes('json') && body.length > 0) {
        try {
          json = JSON.parse(body.toString('utf8'));
        } catch {
          json = undefined;
        }
      }
      const request: RecordedRequest = { method: req.method ?? 'GET', path: url.pathname, query: Object.fromEntries(url.searchParams), headers, body, json, at: Date.now() };
      if (this.#record) this.requests.push(request);
      const reply: FakeReply = {
        json: (status, value, extra) => {
          const text = JSON.stringify(value);
          res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...extra }).end(text);
        },
        raw: (status, bytes, extra) => {
          res.writeHead(status, { 'content-length': bytes.length, ...extra }).end(bytes);
        },
        hang: () => {
          this.#hung.add(res);
          res.on('close', () => this.#hung.delete(res));
        },
      };
      if (request.method === 'GET' && request.path.startsWith('/files/')) {
        this.#serveFile(request.path, reply);
        return;
      }
      Promise.resolve(this.#handler(request, reply)).catch((error: unknown) => {
        if (!res.headersSent) reply.json(500, { error: String(error) });
      });
    });
  }

  #serveFile(path: string, reply: FakeReply): void {
    const ext = /\.([a-z0-9]+)$/u.exec(path)?.[1] ?? '';
    const file = FILE_TYPES[ext];
    if (!file) {
      reply.json(404, { error: 'no such file' });
      return;
    }
    reply.raw(200, this.assets[file.key], { 'content-type': file.type });
  }

  async close(): Promise<void> {
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
    for (const res of this.#hung) res.destroy();
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}

/** The bearer token of a request, or undefined. */
export function bearer(request: RecordedRequest): string | undefined {
  const m = /^Bearer (.+)$/u.exec(request.headers.authorization ?? '');
  return m?.[1];
}

let counter = 0;
export function nextId(prefix: string): string {
  counter += 1;
  return `${prefix}${Date.now().toString(36)}${counter.toString(36).padStart(4, '0')}`;
}
