/** Shared pieces of the media provider tests: jobs from the real catalog, a callback receiver, polling. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Catalog } from '../../../src/domain/catalog/catalog.ts';
import type { MeasuredMedia } from '../../../src/domain/catalog/catalog.types.ts';
import type { MediaJob, MediaProvider, PollOutcome } from '../../../src/providers/media/media-provider.ts';

export const catalog = Catalog.build();

let seq = 0;

/** A job for `model` with `input` validated by the catalog, as the runner would build it. */
export function makeJob(model: string, input: Record<string, unknown>, overrides: Partial<MediaJob> = {}, measured: MeasuredMedia[] = []): MediaJob {
  const info = catalog.media(model);
  if (!info) throw new Error(`unknown model ${model}`);
  const validated = catalog.validate(model, input);
  seq += 1;
  const attemptId = `att_${Date.now().toString(36)}_${seq}`;
  return {
    taskId: `task_${seq}`,
    attemptId,
    model,
    upstreamModel: model,
    family: info.family,
    input: validated,
    measured,
    outputSpec: catalog.outputSpec(model, validated, measured),
    callbackUrl: `http://127.0.0.1:1/callbacks/${attemptId}`,
    parents: {},
    signal: new AbortController().signal,
    ...overrides,
  };
}

export interface ReceivedCallback {
  path: string;
  headers: Record<string, string | undefined>;
  rawBody: Buffer;
}

/** Receives upstream callbacks on 127.0.0.1 and keeps them for `parseCallback`. */
export class CallbackReceiver {
  readonly received: ReceivedCallback[] = [];
  url = '';
  #server: Server;
  #waiters: Array<() => void> = [];

  constructor() {
    this.#server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const headers: Record<string, string | undefined> = {};
        for (const [k, v] of Object.entries(req.headers)) headers[k] = Array.isArray(v) ? v.join(', ') : v;
        this.received.push({ path: req.url ?? '/', headers, rawBody: Buffer.concat(chunks) });
        res.writeHead(200).end('ok');
        for (const w of this.#waiters.splice(0)) w();
      });
    });
  }

  async listen(): Promise<this> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
    return this;
  }

  /** A per-attempt callback URL on this receiver. */
  urlFor(attemptId: string): string {
    return `${this.url}/callbacks/${attemptId}?token=tok_${attemptId}`;
  }

  /** Waits until `count` callbacks for this path prefix arrived. */
  async waitFor(pathPrefix: string, count = 1, timeoutMs = 5_000): Promise<ReceivedCallback[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.received.filter((c) => c.path.startsWith(pathPrefix));
      if (found.length >= count) return found;
      if (Date.now() > deadline) throw new Error(`expected ${count} callbacks on ${pathPrefix}, got ${found.length}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 50);
        this.#waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  close(): Promise<void> {
    this.#server.closeAllConnections();
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }
}

/** Polls until the outcome is final (ignoring the adapter's suggested delay, which tests shorten). */
export async function pollUntilDone(provider: MediaProvider, job: MediaJob, upstreamId: string, timeoutMs = 5_000, everyMs = 10): Promise<{ outcome: PollOutcome; polls: number }> {
  const deadline = Date.now() + timeoutMs;
  let polls = 0;
  let current = upstreamId;
  for (;;) {
    const outcome = await provider.poll(job, current);
    polls += 1;
    if (outcome.kind !== 'pending') return { outcome, polls };
    // As the runner does: a pending poll may move the job to a new upstream id.
    if (outcome.upstreamId !== undefined) current = outcome.upstreamId;
    if (Date.now() > deadline) throw new Error(`still pending after ${polls} polls`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

export async function download(url: string): Promise<{ status: number; type: string | null; body: Buffer }> {
  const response = await fetch(url);
  return { status: response.status, type: response.headers.get('content-type'), body: Buffer.from(await response.arrayBuffer()) };
}

export const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47]);

export function isMp4(bytes: Buffer): boolean {
  return bytes.subarray(4, 8).toString('latin1') === 'ftyp';
}

export function isMp3(bytes: Buffer): boolean {
  return bytes.subarray(0, 3).toString('latin1') === 'ID3' || (bytes[0] === 0xff && ((bytes[1] ?? 0) & 0xe0) === 0xe0);
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
