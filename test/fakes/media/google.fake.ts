/**
 * A fake Gemini API (`https://generativelanguage.googleapis.com`): `generateContent` for the Nano
 * Banana image models (synchronous, the image inline), `predictLongRunning` for Veo 3.1 with its
 * operations (`GET /v1beta/models/{model}/operations/{id}`), `models.list` (`GET /v1beta/models`), and the file download that needs the key
 * and answers 302 to the stored file, as Google's does.
 *
 * Strict: bodies are checked against Google's published documents recorded under
 * test/fixtures/upstreams/google/ (google-documents.ts), per model. An unknown or misspelt field, a
 * missing required one, an enum value outside the document or a value the model does not take is
 * refused as Google refuses it: 400 `{error: {code: 400, message, status: 'INVALID_ARGUMENT'}}`.
 * A bad key is 400 with ErrorInfo `API_KEY_INVALID`, a missing one 403 `PERMISSION_DENIED`.
 *
 * Behaviours (fake-core): `completeAfterMs` delays the image answer or the operation's `done`;
 * `acceptThenFail` blocks the image (`code`: a finishReason, or `prompt` for promptFeedback) or fails
 * the operation (`code`: a google.rpc code number, or `filtered` for a Responsible-AI filter);
 * `failOnSubmit`, `hangOnSubmit`, `lateSuccessAfterMs`, `result.count` as everywhere.
 */
import { sniffImageType } from '../../../src/providers/media/google/google-files.ts';
import { type FakeReply, FakeUpstream, type FakeUpstreamOptions, nextId, type RecordedRequest } from './fake-core.ts';
import { GENERATE_CONTENT, generateContentProblem, PREDICT_LONG_RUNNING, predictLongRunningProblem } from './google-documents.ts';

export interface GoogleJobMeta {
  model: string;
  body: Record<string, unknown>;
  fileId: string;
}

export interface GoogleFakeOptions extends FakeUpstreamOptions {
  apiKey?: string;
}

const CALL = /^\/v1beta\/models\/([A-Za-z0-9._-]+):(generateContent|predictLongRunning)$/u;
const OPERATION = /^\/v1beta\/(models\/[A-Za-z0-9._-]+\/operations\/([A-Za-z0-9._-]+))$/u;
const DOWNLOAD = /^\/v1beta\/files\/([A-Za-z0-9_-]+):download$/u;

/** What `models.list` returns: id, display name, generation methods. */
const LISTED_MODELS: ReadonlyArray<readonly [string, string, readonly string[]]> = [
  ['gemini-2.5-flash-image', 'Nano Banana', ['generateContent', 'countTokens']],
  ['gemini-3-pro-image-preview', 'Nano Banana Pro', ['generateContent', 'countTokens']],
  ['veo-3.1-generate-preview', 'Veo 3.1', ['predictLongRunning']],
];

function googleErrorBody(code: number, status: string, message: string, details?: unknown[]): Record<string, unknown> {
  return { error: { code, message, status, ...(details ? { details } : {}) } };
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** Every image sent inline, with the type it says it is. */
function inlineImages(body: Record<string, unknown>): Array<{ data: string; mimeType: string }> {
  const found: Array<{ data: string; mimeType: string }> = [];
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) {
      for (const v of value) visit(v);
      return;
    }
    const record = asRecord(value);
    if (!record) return;
    const inline = asRecord(record.inlineData);
    if (inline) found.push({ data: String(inline.data), mimeType: String(inline.mimeType) });
    else if (typeof record.bytesBase64Encoded === 'string') found.push({ data: record.bytesBase64Encoded, mimeType: String(record.mimeType) });
    else for (const v of Object.values(record)) visit(v);
  };
  visit(body);
  return found;
}

export class GoogleFake extends FakeUpstream<GoogleJobMeta> {
  readonly apiKey: string;
  /** Answers for the next operation polls, taken in order before the operation is read (429s, 5xx). */
  readonly pollAnswers: Array<{ status: number; body: unknown; headers?: Record<string, string> }> = [];
  readonly #files = new Map<string, string>();

  constructor(options: GoogleFakeOptions = {}) {
    super((request, reply) => this.#handle(request, reply), options);
    this.apiKey = options.apiKey ?? 'google-test-key';
  }

  /** The generateContent and predictLongRunning bodies received, in order. */
  callsTo(method: 'generateContent' | 'predictLongRunning'): Array<{ model: string; body: Record<string, unknown> }> {
    return this.requests.flatMap((r) => {
      const m = CALL.exec(r.path);
      return r.method === 'POST' && m?.[2] === method ? [{ model: m[1] ?? '', body: asRecord(r.json) ?? {} }] : [];
    });
  }

  #authorized(request: RecordedRequest, reply: FakeReply): boolean {
    const key = request.headers['x-goog-api-key'] ?? request.query.key;
    if (key === undefined) {
      reply.json(403, googleErrorBody(403, 'PERMISSION_DENIED', "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API."));
      return false;
    }
    if (key !== this.apiKey) {
      reply.json(400, googleErrorBody(400, 'INVALID_ARGUMENT', 'API key not valid. Please pass a valid API key.', [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID', domain: 'googleapis.com' }]));
      return false;
    }
    return true;
  }

  async #handle(request: RecordedRequest, reply: FakeReply): Promise<void> {
    if (!this.#authorized(request, reply)) return;
    const call = CALL.exec(request.path);
    if (request.method === 'POST' && call) {
      await this.#call(request, reply, call[1] ?? '', call[2] as 'generateContent' | 'predictLongRunning');
      return;
    }
    if (request.method === 'GET' && request.path === '/v1beta/models') {
      this.#listModels(request, reply);
      return;
    }
    const operation = OPERATION.exec(request.path);
    if (request.method === 'GET' && operation) {
      this.#operation(reply, operation[1] ?? '', operation[2] ?? '');
      return;
    }
    const download = DOWNLOAD.exec(request.path);
    if (request.method === 'GET' && download && request.query.alt === 'media') {
      const jobId = this.#files.get(download[1] ?? '');
      if (!jobId) {
        reply.json(404, googleErrorBody(404, 'NOT_FOUND', 'File not found.'));
        return;
      }
      // Google's download answers with a redirect to the stored bytes, which carry no key.
      reply.raw(302, Buffer.alloc(0), { location: `${this.url}/files/${jobId}/0.mp4` });
      return;
    }
    reply.json(404, googleErrorBody(404, 'NOT_FOUND', `The requested URL ${request.path} was not found on this server.`));
  }

  /** `models.list` (`pageSize` default 50, at most 1000), in the Gemini API's shape; the page token is the next index. */
  #listModels(request: RecordedRequest, reply: FakeReply): void {
    const size = Math.min(1000, Math.max(1, Number(request.query.pageSize ?? 50) || 50));
    const start = Number(request.query.pageToken ?? 0) || 0;
    const page = LISTED_MODELS.slice(start, start + size);
    const next = start + size < LISTED_MODELS.length ? { nextPageToken: String(start + size) } : {};
    reply.json(200, { models: page.map(([id, displayName, methods]) => ({ name: `models/${id}`, version: '001', displayName, supportedGenerationMethods: methods })), ...next });
  }

  #refuse(reply: FakeReply, problem: string): void {
    const notFound = problem.startsWith('models/');
    reply.json(notFound ? 404 : 400, googleErrorBody(notFound ? 404 : 400, notFound ? 'NOT_FOUND' : 'INVALID_ARGUMENT', notFound ? problem : `Invalid request: ${problem}`));
  }

  async #call(request: RecordedRequest, reply: FakeReply, model: string, method: 'generateContent' | 'predictLongRunning'): Promise<void> {
    const body = asRecord(request.json);
    if (!body) {
      reply.json(400, googleErrorBody(400, 'INVALID_ARGUMENT', 'Invalid JSON payload received.'));
      return;
    }
    const problem = method === 'generateContent' ? generateContentProblem(model, body) : predictLongRunningProblem(model, body);
    if (problem) {
      this.#refuse(reply, problem);
      return;
    }
    for (const image of inlineImages(body)) {
      if (sniffImageType(Buffer.from(image.data, 'base64')) !== image.mimeType) {
        this.#refuse(reply, `Unable to process input image (declared ${image.mimeType}).`);
        return;
      }
    }
    const behaviour = this.takeBehaviour(request);
    if (behaviour.failOnSubmit) {
      reply.json(behaviour.failOnSubmit.status, behaviour.failOnSubmit.body, behaviour.failOnSubmit.headers);
      return;
    }
    const fileId = nextId('file');
    const job = this.createJob({ id: nextId('op'), behaviour, kind: method === 'generateContent' ? 'image' : 'video', callbackUrl: undefined, meta: { model, body, fileId } });
    this.#files.set(fileId, job.id);
    if (behaviour.hangOnSubmit) {
      reply.hang();
      return;
    }
    if (method === 'predictLongRunning') {
      reply.json(200, { name: `models/${model}/operations/${job.id}` });
      return;
    }
    // generateContent answers when the image is made.
    if (!behaviour.instant) await new Promise((resolve) => setTimeout(resolve, behaviour.completeAfterMs ?? 30));
    if (behaviour.acceptThenFail) {
      const code = this.failureOf(job).code;
      if (code === 'prompt') {
        reply.json(200, { promptFeedback: { blockReason: 'PROHIBITED_CONTENT' }, usageMetadata: { promptTokenCount: 12, totalTokenCount: 12 } });
        return;
      }
      reply.json(200, { candidates: [{ content: { role: 'model', parts: [] }, finishReason: String(code ?? 'IMAGE_SAFETY'), index: 0 }] });
      return;
    }
    const data = this.assets.png.toString('base64');
    const parts = Array.from({ length: job.count }, () => ({ inlineData: { mimeType: 'image/png', data }, thoughtSignature: 'c2lnbmF0dXJl' }));
    reply.json(200, { candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }], usageMetadata: { promptTokenCount: 12, candidatesTokenCount: 1120, totalTokenCount: 1132 }, modelVersion: model });
  }

  #operation(reply: FakeReply, name: string, id: string): void {
    const scripted = this.pollAnswers.shift();
    if (scripted) {
      reply.json(scripted.status, scripted.body, scripted.headers);
      return;
    }
    const job = this.jobs.get(id);
    if (!job || !name.startsWith(`models/${job.meta.model}/`)) {
      reply.json(404, googleErrorBody(404, 'NOT_FOUND', `Operation ${name} not found.`));
      return;
    }
    const phase = this.phase(job);
    if (phase === 'queued' || phase === 'running') {
      reply.json(200, { name });
      return;
    }
    if (phase === 'failed') {
      const code = this.failureOf(job).code;
      if (code === 'filtered') {
        reply.json(200, { ...(PREDICT_LONG_RUNNING.responses.filtered?.body as Record<string, unknown>), name });
        return;
      }
      reply.json(200, { name, done: true, error: { code: typeof code === 'number' ? code : 13, message: this.failureOf(job).message } });
      return;
    }
    const uri = `${this.url}/v1beta/files/${job.meta.fileId}:download?alt=media`;
    reply.json(200, {
      name,
      done: true,
      response: {
        '@type': 'type.googleapis.com/google.ai.generativelanguage.v1beta.PredictLongRunningResponse',
        generateVideoResponse: { generatedSamples: [{ video: { uri } }] },
      },
    });
  }
}

export async function startGoogleFake(options: GoogleFakeOptions = {}): Promise<GoogleFake> {
  const fake = new GoogleFake(options);
  await fake.listen();
  return fake;
}

export { GENERATE_CONTENT, PREDICT_LONG_RUNNING };
