/**
 * A fake OpenAI Images and Videos API (paths without `/v1`; give the provider `baseUrl: {url}/v1`
 * or `{url}`, both route). Images are synchronous: `completeAfterMs` delays the answer,
 * `hangOnSubmit` never answers. Videos: `POST /videos` (JSON or multipart), `GET /videos/{id}`,
 * `GET /videos/{id}/content` (the MP4, bearer only), `GET /videos` (cursor list, newest first), `GET /models`.
 * Errors use OpenAI's `{error: {message, type, param, code}}`.
 */
import { randomBytes } from 'node:crypto';
import { bearer, type FakeJob, type FakeReply, FakeUpstream, type FakeUpstreamOptions, type RecordedRequest } from './fake-core.ts';

export interface OpenAiJobMeta {
  model: string;
  prompt: string;
  seconds: string;
  size: string;
  inputReference: unknown;
}

export interface OpenAiFakeOptions extends FakeUpstreamOptions {
  apiKey?: string;
}

/** What an images request carried, parsed (JSON or multipart). */
export interface ImageCall {
  path: string;
  fields: Record<string, string>;
  /** Uploaded images: field name, file name, type and size. */
  files: Array<{ field: string; name: string; type: string; bytes: number }>;
}

const FIXED_SIZES = new Set(['1024x1024', '1536x1024', '1024x1536', 'auto']);
const VIDEO_SIZES = new Set(['720x1280', '1280x720', '1024x1792', '1792x1024']);
const GPT_IMAGE_QUALITIES: ReadonlySet<string> = new Set(['low', 'medium', 'high', 'auto']);
/** openai-node 7.57.0 `resources/videos.d.ts`: `VideoSeconds = '4' | '8' | '12'`. */
const VIDEO_SECONDS = new Set(['4', '8', '12']);

function oaError(message: string, type: string, param: string | null, code: string | null): unknown {
  return { error: { message, type, param, code } };
}

function flexibleSizeProblem(size: string): string | undefined {
  if (size === 'auto') return undefined;
  const m = /^(\d+)x(\d+)$/u.exec(size);
  if (!m) return `Invalid size '${size}'.`;
  const w = Number(m[1]);
  const h = Number(m[2]);
  if (w % 16 !== 0 || h % 16 !== 0) return 'Both sides must be multiples of 16.';
  if (Math.max(w, h) > 3840) return 'The longest side must be at most 3840.';
  if (Math.max(w, h) / Math.min(w, h) > 3) return 'The aspect ratio must be at most 3:1.';
  if (w * h < 655_360 || w * h > 8_294_400) return 'The image must have between 655,360 and 8,294,400 pixels.';
  return undefined;
}

export class OpenAiFake extends FakeUpstream<OpenAiJobMeta> {
  readonly apiKey: string;
  readonly imageCalls: ImageCall[] = [];

  constructor(options: OpenAiFakeOptions = {}) {
    super((request, reply) => this.#handle(request, reply), { ...options, callbacks: false });
    this.apiKey = options.apiKey ?? 'sk-test-key';
  }

  async #handle(request: RecordedRequest, reply: FakeReply): Promise<void> {
    if (bearer(request) !== this.apiKey) {
      reply.json(401, oaError('Incorrect API key provided.', 'invalid_request_error', null, 'invalid_api_key'));
      return;
    }
    const path = request.path.replace(/^\/v1(?=\/)/u, '');
    if (request.method === 'POST' && (path === '/images/generations' || path === '/images/edits')) return this.#images(request, reply, path);
    if (request.method === 'POST' && path === '/videos') return this.#createVideo(request, reply);
    if (request.method === 'GET' && path === '/models') return reply.json(200, { object: 'list', data: ['gpt-image-1', 'sora-2'].map((id) => ({ id, object: 'model', created: 1_715_367_049, owned_by: 'system' })) });
    if (request.method === 'GET' && path === '/videos') return this.#listVideos(request, reply);
    const one = /^\/videos\/([^/]+)(\/content)?$/u.exec(path);
    if (request.method === 'GET' && one) {
      const job = this.jobs.get(one[1] ?? '');
      if (!job) return reply.json(404, oaError(`Video with id '${one[1]}' not found.`, 'invalid_request_error', null, 'video_not_found'));
      if (one[2]) return this.#content(job, reply);
      return reply.json(200, this.videoOf(job));
    }
    reply.json(404, oaError(`Unknown request URL: ${request.method} ${request.path}.`, 'invalid_request_error', null, 'unknown_url'));
  }

  async #form(request: RecordedRequest): Promise<ImageCall | string> {
    const type = request.headers['content-type'] ?? '';
    const call: ImageCall = { path: request.path, fields: {}, files: [] };
    if (type.startsWith('multipart/form-data')) {
      let form: FormData;
      try {
        form = await new Response(new Uint8Array(request.body), { headers: { 'content-type': type } }).formData();
      } catch {
        return 'Could not parse multipart form.';
      }
      for (const [field, value] of form.entries()) {
        if (typeof value === 'string') call.fields[field] = value;
        else call.files.push({ field, name: value.name, type: value.type, bytes: value.size });
      }
      return call;
    }
    if (request.json === null || typeof request.json !== 'object') return 'We could not parse the JSON body of your request.';
    for (const [k, v] of Object.entries(request.json as Record<string, unknown>)) call.fields[k] = typeof v === 'string' ? v : JSON.stringify(v);
    return call;
  }

  async #images(request: RecordedRequest, reply: FakeReply, path: string): Promise<void> {
    const call = await this.#form(request);
    if (typeof call === 'string') return reply.json(400, oaError(call, 'invalid_request_error', null, null));
    this.imageCalls.push(call);
    const behaviour = this.takeBehaviour(request);
    if (behaviour.hangOnSubmit) return reply.hang();
    if (!behaviour.instant && behaviour.completeAfterMs) await new Promise((r) => setTimeout(r, behaviour.completeAfterMs));
    if (behaviour.failOnSubmit) return reply.json(behaviour.failOnSubmit.status, behaviour.failOnSubmit.body, behaviour.failOnSubmit.headers);
    const { fields } = call;
    if (!fields.prompt) return reply.json(400, oaError("Missing required parameter: 'prompt'.", 'invalid_request_error', 'prompt', 'missing_required_parameter'));
    const model = fields.model ?? 'gpt-image-1';
    const size = fields.size ?? 'auto';
    const fixed = /^gpt-image-1/u.test(model);
    const problem = fixed ? (FIXED_SIZES.has(size) ? undefined : `Invalid value: '${size}'. Supported values are: '1024x1024', '1024x1536', '1536x1024', and 'auto'.`) : flexibleSizeProblem(size);
    if (problem) return reply.json(400, oaError(problem, 'invalid_request_error', 'size', 'invalid_value'));
    // openai-node 7.57.0 ImageGenerateParams.quality: "high, medium and low are supported for the GPT image models" (and auto).
    if (/^gpt-image-/u.test(model) && fields.quality !== undefined && !GPT_IMAGE_QUALITIES.has(fields.quality)) {
      return reply.json(400, oaError(`Invalid value: '${fields.quality}'. Supported values are: 'low', 'medium', 'high', and 'auto'.`, 'invalid_request_error', 'quality', 'invalid_value'));
    }
    if (path === '/images/edits' && !call.files.some((f) => f.field === 'image' || f.field === 'image[]')) {
      return reply.json(400, oaError("Missing required parameter: 'image'.", 'invalid_request_error', 'image', 'missing_required_parameter'));
    }
    if (behaviour.acceptThenFail) {
      return reply.json(400, oaError('Your request was rejected by the safety system.', 'image_generation_user_error', null, 'moderation_blocked'));
    }
    const n = Number(fields.n ?? 1);
    reply.json(200, {
      created: Math.floor(Date.now() / 1000),
      background: 'opaque',
      output_format: fields.output_format ?? 'png',
      quality: fields.quality ?? 'auto',
      size,
      data: Array.from({ length: n }, () => ({ b64_json: this.assets.png.toString('base64') })),
      usage: { input_tokens: 50, output_tokens: 1056, total_tokens: 1106, input_tokens_details: { text_tokens: 50, image_tokens: 0 } },
    });
  }

  async #createVideo(request: RecordedRequest, reply: FakeReply): Promise<void> {
    const call = await this.#form(request);
    if (typeof call === 'string') return reply.json(400, oaError(call, 'invalid_request_error', null, null));
    const behaviour = this.takeBehaviour(request);
    if (behaviour.failOnSubmit) return reply.json(behaviour.failOnSubmit.status, behaviour.failOnSubmit.body, behaviour.failOnSubmit.headers);
    const { fields } = call;
    if (!fields.prompt) return reply.json(400, oaError("Missing required parameter: 'prompt'.", 'invalid_request_error', 'prompt', 'missing_required_parameter'));
    const seconds = fields.seconds ?? '4';
    const size = fields.size ?? '720x1280';
    if (!VIDEO_SECONDS.has(seconds)) return reply.json(400, oaError(`Invalid value: '${seconds}'.`, 'invalid_request_error', 'seconds', 'invalid_value'));
    if (!VIDEO_SIZES.has(size)) return reply.json(400, oaError(`Invalid value: '${size}'.`, 'invalid_request_error', 'size', 'invalid_value'));
    const reference = fields.input_reference ? JSON.parse(fields.input_reference) : (call.files.find((f) => f.field === 'input_reference') ?? null);
    const job = this.createJob({
      id: `video_${randomBytes(16).toString('hex')}`,
      behaviour,
      kind: 'video',
      callbackUrl: undefined,
      meta: { model: fields.model ?? 'sora-2', prompt: fields.prompt, seconds, size, inputReference: reference },
    });
    if (behaviour.hangOnSubmit) return reply.hang();
    reply.json(200, this.videoOf(job));
  }

  videoOf(job: FakeJob<OpenAiJobMeta>): Record<string, unknown> {
    const phase = this.phase(job);
    const status = phase === 'queued' ? 'queued' : phase === 'running' ? 'in_progress' : phase === 'succeeded' ? 'completed' : 'failed';
    const failure = this.failureOf(job);
    return {
      id: job.id,
      object: 'video',
      model: job.meta.model,
      status,
      progress: status === 'completed' ? 100 : status === 'in_progress' ? 50 : 0,
      created_at: Math.floor(job.createdAt / 1000),
      completed_at: status === 'completed' ? Math.floor(Date.now() / 1000) : null,
      expires_at: null,
      prompt: job.meta.prompt,
      remixed_from_video_id: null,
      seconds: job.meta.seconds,
      size: job.meta.size,
      error: status === 'failed' ? { code: String(failure.code ?? 'video_generation_failed'), message: failure.message } : null,
    };
  }

  #content(job: FakeJob<OpenAiJobMeta>, reply: FakeReply): void {
    if (this.phase(job) !== 'succeeded') {
      reply.json(404, oaError('Video is not ready yet, use GET /v1/videos/{video_id} to check status.', 'invalid_request_error', null, 'video_not_ready'));
      return;
    }
    reply.raw(200, this.assets.mp4, { 'content-type': 'video/mp4' });
  }

  #listVideos(request: RecordedRequest, reply: FakeReply): void {
    const limit = Math.min(100, Number(request.query.limit ?? 20));
    const all = [...this.jobs.values()].sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1));
    const ordered = request.query.order === 'asc' ? all.reverse() : all;
    const start = request.query.after ? ordered.findIndex((j) => j.id === request.query.after) + 1 : 0;
    const page = ordered.slice(start, start + limit);
    reply.json(200, {
      object: 'list',
      data: page.map((j) => this.videoOf(j)),
      first_id: page[0]?.id ?? null,
      last_id: page[page.length - 1]?.id ?? null,
      has_more: start + limit < ordered.length,
    });
  }
}

export async function startOpenAiFake(options: OpenAiFakeOptions = {}): Promise<OpenAiFake> {
  const fake = new OpenAiFake(options);
  await fake.listen();
  return fake;
}
