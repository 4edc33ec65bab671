/**
 * A fake kie.ai: Market jobs (`/api/v1/jobs/createTask`, `/api/v1/jobs/recordInfo`), Veo 3.1
 * (`/api/v1/veo/generate`, `/api/v1/veo/record-info`, the 1080p and 4K upgrade calls) and the Suno
 * API (generate, extend, uploads, lyrics, wav, vocal removal, mp4, and the synchronous
 * timestamped-lyrics, style and persona calls), and the account's credit (`GET /api/v1/chat/credit`). kie-style answers: `{code, msg, data}`, errors as a
 * code in a 200 body (except auth, which is a 401).
 *
 * Strict where kie publishes a schema: bodies are checked against the documents recorded under
 * test/fixtures/upstreams/kie/ (one per endpoint or Market model, each naming its source), and an
 * unknown or misspelt field, a missing required one or a value outside an enum is refused as kie
 * refuses it: HTTP 200 with `{code: 422, msg}`. A Market model without a recorded document is refused
 * too. Callbacks are posted to `callBackUrl` and signed with kie's HMAC when `webhookHmacKey` is given.
 */
import { createHmac, randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { type FieldSchema, schemaProblem } from './schema-check.ts';
import { bearer, type FakeBehaviour, type FakeJob, type FakeReply, FakeUpstream, type FakeUpstreamOptions, guessKind, type JobPhase, nextId, type RecordedRequest } from './fake-core.ts';

type KieApi = 'market' | 'veo' | 'music' | 'lyrics' | 'wav' | 'stems' | 'mp4' | 'midi';

export interface KieJobMeta {
  api: KieApi;
  model: string;
  /** The Market `input`, or the whole body for Veo and Suno. */
  input: Record<string, unknown>;
  body: Record<string, unknown>;
  /** Suno vocal removal type. */
  stemType?: string;
  /** Veo: the resolution the generated record reports, and the upgrades asked for since. */
  resolution?: string;
  upgrades?: Partial<Record<'1080p' | '4k', number>>;
  /** Veo: the 4K upgrade's task id (kie's POST answer names it; record-info reports it). */
  fourKTaskId?: string;
  /** Veo: how many times get-4k-video was POSTed for this task (each first POST starts a paid job). */
  fourKPosts?: number;
}

export interface KieFakeOptions extends FakeUpstreamOptions {
  apiKey?: string;
  webhookHmacKey?: string;
  /**
   * Veo: whether `resolution` in the generate body is honoured (kie's current page) or ignored, as by
   * the older service whose only way to 1080p and 4K is the upgrade calls (default true).
   */
  veoInlineResolution?: boolean;
  /** Veo upgrades: from the first upgrade call to the upgraded file (default 30 ms). */
  veoUpgradeMs?: number;
}

/** One recorded kie document (test/fixtures/upstreams/kie/*.json). */
export interface KieFixture {
  source: string;
  retrieved: string;
  endpoint: string;
  model?: string;
  body?: FieldSchema;
  input?: FieldSchema;
  query?: FieldSchema;
  /**
   * Cross-field conditions a page states in prose: when every `when` member matches, each `require`d
   * member must hold one of its values and no `forbid`den member may hold one of its (`null`: absent).
   */
  rules?: Array<{ when: Record<string, unknown>; require?: Record<string, unknown[]>; forbid?: Record<string, unknown[]>; message: string }>;
  responses?: Record<string, unknown>;
}

const FIXTURE_DIR = new URL('../../fixtures/upstreams/kie/', import.meta.url);

function loadFixtures(): KieFixture[] {
  return readdirSync(FIXTURE_DIR)
    .filter((f) => f.endsWith('.json'))
    .map((f) => JSON.parse(readFileSync(new URL(f, FIXTURE_DIR), 'utf8')) as KieFixture);
}

export const KIE_FIXTURES: readonly KieFixture[] = loadFixtures();

const MARKET_ENVELOPE: FieldSchema = {
  type: 'object',
  required: ['model', 'input'],
  properties: { model: { type: 'string', minLength: 1 }, input: { type: 'object' }, callBackUrl: { type: 'string' } },
};

function fixtureFor(endpoint: string, model?: string): KieFixture | undefined {
  return KIE_FIXTURES.find((f) => f.endpoint === endpoint && (model === undefined || f.model === model));
}

/** What kie would refuse in this body, per its recorded document; undefined when it has none. */
export function documentedProblem(endpoint: string, body: Record<string, unknown>): string | undefined {
  if (endpoint === 'POST /api/v1/jobs/createTask') {
    const envelope = schemaProblem(MARKET_ENVELOPE, body, '');
    if (envelope) return envelope;
    const fixture = fixtureFor(endpoint, String(body.model));
    if (!fixture?.input) return `model ${String(body.model)} is not supported (no published schema recorded in test/fixtures/upstreams/kie)`;
    return schemaProblem(fixture.input, body.input, 'input') ?? ruleProblem(fixture, asRecord(body.input) ?? {});
  }
  const fixture = fixtureFor(endpoint);
  if (!fixture?.body) return undefined;
  return schemaProblem(fixture.body, body, '') ?? ruleProblem(fixture, body);
}

function ruleProblem(fixture: KieFixture, body: Record<string, unknown>): string | undefined {
  for (const rule of fixture.rules ?? []) {
    if (!Object.entries(rule.when).every(([k, v]) => body[k] === v)) continue;
    if (!Object.entries(rule.require ?? {}).every(([k, allowed]) => allowed.includes(body[k]))) return rule.message;
    if (Object.entries(rule.forbid ?? {}).some(([k, refused]) => refused.includes(body[k] ?? null))) return rule.message;
  }
  return undefined;
}

const SUNO_MUSIC_PATHS = new Set([
  '/api/v1/generate',
  '/api/v1/generate/extend',
  '/api/v1/generate/upload-cover',
  '/api/v1/generate/upload-extend',
  '/api/v1/generate/add-instrumental',
  '/api/v1/generate/add-vocals',
  '/api/v1/generate/replace-section',
]);

const SUNO_TASK_PATHS: Readonly<Record<string, KieApi>> = {
  '/api/v1/lyrics': 'lyrics',
  '/api/v1/wav/generate': 'wav',
  '/api/v1/vocal-removal/generate': 'stems',
  '/api/v1/mp4/generate': 'mp4',
  '/api/v1/midi/generate': 'midi',
};

const RECORD_PATHS: Readonly<Record<string, KieApi>> = {
  '/api/v1/jobs/recordInfo': 'market',
  '/api/v1/veo/record-info': 'veo',
  '/api/v1/generate/record-info': 'music',
  '/api/v1/lyrics/record-info': 'lyrics',
  '/api/v1/wav/record-info': 'wav',
  '/api/v1/vocal-removal/record-info': 'stems',
  '/api/v1/mp4/record-info': 'mp4',
  '/api/v1/midi/record-info': 'midi',
};

const SUNO_ENGINES: ReadonlySet<string> = new Set(['V4', 'V4_5', 'V4_5PLUS', 'V4_5ALL', 'V5', 'V5_5']);

const STEM_FIELDS = ['vocalUrl', 'backingVocalsUrl', 'drumsUrl', 'bassUrl', 'guitarUrl', 'keyboardUrl', 'percussionUrl', 'stringsUrl', 'synthUrl', 'fxUrl', 'brassUrl', 'woodwindsUrl'];

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

export class KieFake extends FakeUpstream<KieJobMeta> {
  readonly apiKey: string;
  readonly webhookHmacKey: string | undefined;
  veoInlineResolution: boolean;
  veoUpgradeMs: number;
  /** The account's balance, as `GET /api/v1/chat/credit` reports it. */
  credits = 1000;

  constructor(options: KieFakeOptions = {}) {
    super((request, reply) => this.#handle(request, reply), options);
    this.apiKey = options.apiKey ?? 'kie-test-key';
    this.webhookHmacKey = options.webhookHmacKey;
    this.veoInlineResolution = options.veoInlineResolution ?? true;
    this.veoUpgradeMs = options.veoUpgradeMs ?? 30;
    this.callbackFor = (job, phase) => this.#callback(job, phase);
  }

  #handle(request: RecordedRequest, reply: FakeReply): void {
    if (bearer(request) !== this.apiKey) {
      reply.json(401, { code: 401, msg: 'You do not have access permissions' });
      return;
    }
    const { method, path } = request;
    if (method === 'POST') {
      if (path === '/api/v1/jobs/createTask') {
        this.#submit(request, reply, 'market');
        return;
      }
      if (path === '/api/v1/veo/generate') {
        this.#submit(request, reply, 'veo');
        return;
      }
      if (path === '/api/v1/veo/get-4k-video') {
        this.#upgrade(request, reply, '4k');
        return;
      }
      if (SUNO_MUSIC_PATHS.has(path)) {
        this.#submit(request, reply, 'music');
        return;
      }
      const api = SUNO_TASK_PATHS[path];
      if (api) {
        this.#submit(request, reply, api);
        return;
      }
      if (path === '/api/v1/generate/get-timestamped-lyrics') {
        this.#sync(request, reply, () => ({ alignedWords: [{ word: 'la', startS: 0.1, endS: 0.4, success: true }], waveformData: [0.1, 0.5], hootCer: 0.2, isStreamed: false }));
        return;
      }
      if (path === '/api/v1/style/generate') {
        this.#sync(request, reply, (b) => ({ taskId: nextId('style_'), param: String(b.content ?? ''), result: `boosted: ${String(b.content ?? '')}` }));
        return;
      }
      if (path === '/api/v1/generate/generate-persona') {
        this.#sync(request, reply, (b) => ({ personaId: `persona_${String(b.audioId ?? '')}`, name: b.name, description: b.description }));
        return;
      }
    }
    if (method === 'GET') {
      if (path === '/api/v1/chat/credit') {
        reply.json(200, { code: 200, msg: 'success', data: this.credits });
        return;
      }
      if (path === '/api/v1/veo/get-1080p-video') {
        this.#upgrade(request, reply, '1080p');
        return;
      }
      const api = RECORD_PATHS[path];
      if (api) {
        this.#record(request, reply, api);
        return;
      }
    }
    reply.json(404, { code: 404, msg: `no route ${method} ${path}` });
  }

  #validate(api: KieApi, path: string, body: Record<string, unknown>): string | undefined {
    const documented = documentedProblem(`POST ${path}`, body);
    if (documented || api === 'market' || api === 'veo') return documented;
    // Suno endpoints without a recorded document yet: the light checks below (docs/media-providers.md).
    if (typeof body.callBackUrl !== 'string' || body.callBackUrl === '') return 'callBackUrl is required';
    if (api === 'music' && 'customMode' in body) {
      if (typeof body.model !== 'string') return 'model is required';
      // kie's generate, extend and upload pages: the engines it lists (no V3_5).
      if (!SUNO_ENGINES.has(body.model)) return `model must be one of ${[...SUNO_ENGINES].join(', ')}`;
      if (body.customMode === true) {
        if (!body.style || !body.title) return 'style and title are required in custom mode';
        if (body.instrumental !== true && !body.prompt) return 'prompt is required in custom mode with vocals';
      } else if (!body.prompt) {
        return 'prompt is required';
      }
    }
    if (api === 'lyrics' && !body.prompt) return 'prompt is required';
    if ((api === 'wav' || api === 'stems' || api === 'mp4' || api === 'midi') && !body.taskId) return 'taskId is required';
    return undefined;
  }

  #submit(request: RecordedRequest, reply: FakeReply, api: KieApi): void {
    const body = asRecord(request.json);
    if (!body) {
      reply.json(200, { code: 422, msg: 'the body must be a JSON object' });
      return;
    }
    const behaviour: FakeBehaviour = this.takeBehaviour(request);
    if (behaviour.failOnSubmit) {
      reply.json(behaviour.failOnSubmit.status, behaviour.failOnSubmit.body, behaviour.failOnSubmit.headers);
      return;
    }
    const problem = this.#validate(api, request.path, body);
    if (problem) {
      reply.json(200, { code: 422, msg: problem });
      return;
    }
    const model = api === 'market' ? String(body.model) : api === 'veo' ? String(body.model ?? 'veo3_fast') : 'suno';
    const input = api === 'market' ? (asRecord(body.input) ?? {}) : body;
    const kind = api === 'veo' || api === 'mp4' ? 'video' : api === 'market' ? guessKind(model) : 'audio';
    const count = api === 'music' ? 2 : api === 'stems' ? (body.type === 'split_stem' ? STEM_FIELDS.length : 2) : 1;
    const job = this.createJob({
      id: api === 'market' ? nextId('task_') : randomUUID().replaceAll('-', ''),
      behaviour,
      kind,
      count,
      callbackUrl: typeof body.callBackUrl === 'string' ? body.callBackUrl : undefined,
      meta: {
        api,
        model,
        input,
        body,
        ...(typeof body.type === 'string' ? { stemType: body.type } : {}),
        ...(api === 'veo' ? { resolution: this.veoInlineResolution && typeof body.resolution === 'string' ? body.resolution : '720p' } : {}),
      },
    });
    if (behaviour.hangOnSubmit) {
      reply.hang();
      return;
    }
    reply.json(200, { code: 200, msg: 'success', data: { taskId: job.id } });
  }

  /**
   * kie's Veo upgrades: GET get-1080p-video answers `400 1080P is processing` until the file is ready,
   * then `{resultUrl}`; POST get-4k-video starts the 4K job (`resultUrls: null`), answers `422 4k is
   * processing` to a repeat while it runs, then gives `resultUrls`. Only for a task that succeeded.
   */
  #upgrade(request: RecordedRequest, reply: FakeReply, tier: '1080p' | '4k'): void {
    const body = tier === '4k' ? (asRecord(request.json) ?? {}) : {};
    const problem = tier === '4k' ? documentedProblem('POST /api/v1/veo/get-4k-video', body) : request.query.taskId ? undefined : 'taskId is required';
    if (problem) {
      reply.json(200, { code: 422, msg: problem, data: null });
      return;
    }
    const taskId = tier === '4k' ? String(body.taskId) : (request.query.taskId ?? '');
    const job = this.jobs.get(taskId);
    if (job?.meta.api !== 'veo') {
      reply.json(200, { code: 422, msg: 'record is null', data: null });
      return;
    }
    if (this.phase(job) !== 'succeeded') {
      reply.json(200, { code: 422, msg: 'record status is not success', data: null });
      return;
    }
    job.meta.upgrades ??= {};
    const upgrades = job.meta.upgrades;
    const started = upgrades[tier];
    if (started === undefined) upgrades[tier] = Date.now();
    const ready = started !== undefined && Date.now() - started >= this.veoUpgradeMs;
    const url = this.fileUrl(job, `${tier}-0.mp4`);
    if (tier === '1080p') {
      if (ready) reply.json(200, { code: 200, msg: 'success', data: { resultUrl: url } });
      else reply.json(200, { code: 400, msg: '1080P is processing. It should be ready in 1-2 minutes. Please check back shortly.', data: null });
      return;
    }
    job.meta.fourKPosts = (job.meta.fourKPosts ?? 0) + 1;
    job.meta.fourKTaskId ??= nextId('veo_4k_');
    this.#fourKJobs.set(job.meta.fourKTaskId, job);
    const upgradeId = job.meta.fourKTaskId;
    if (started === undefined) reply.json(200, { code: 200, msg: 'success', data: { taskId: upgradeId, resultUrls: null, imageUrls: null } });
    else if (!ready) reply.json(200, { code: 422, msg: '4k is processing. It should be ready in 5-10 minutes. Please check back shortly.', data: { taskId: upgradeId, resultUrls: null, imageUrls: null } });
    else reply.json(200, { code: 200, msg: 'success', data: { taskId: upgradeId, resultUrls: [url], imageUrls: [this.fileUrl(job, '4k-0.jpg')] } });
  }

  #sync(request: RecordedRequest, reply: FakeReply, make: (body: Record<string, unknown>) => Record<string, unknown>): void {
    const body = asRecord(request.json) ?? {};
    const behaviour = this.takeBehaviour(request);
    if (behaviour.failOnSubmit) {
      reply.json(behaviour.failOnSubmit.status, behaviour.failOnSubmit.body, behaviour.failOnSubmit.headers);
      return;
    }
    if (behaviour.hangOnSubmit) {
      reply.hang();
      return;
    }
    reply.json(200, { code: 200, msg: 'success', data: make(body) });
  }

  /** 4K upgrade tasks by their id → the Veo task they upgrade. */
  readonly #fourKJobs = new Map<string, FakeJob<KieJobMeta>>();

  /**
   * record-info of a 4K upgrade task (kie's page: record-info reports every Veo task, "including 1080P
   * and 4K upgrade tasks"): generating until the upgrade is ready, then successful at 4k.
   */
  #fourKRecord(upgradeId: string, job: FakeJob<KieJobMeta>): Record<string, unknown> {
    const started = job.meta.upgrades?.['4k'];
    const ready = started !== undefined && Date.now() - started >= this.veoUpgradeMs;
    const url = this.fileUrl(job, '4k-0.mp4');
    return {
      taskId: upgradeId,
      paramJson: JSON.stringify({ taskId: job.id, index: 0 }),
      response: ready ? { taskId: upgradeId, resultUrls: [url], originUrls: [url], resolution: '4k' } : null,
      successFlag: ready ? 1 : 0,
      errorCode: null,
      errorMessage: '',
      createTime: new Date(started ?? Date.now()).toISOString(),
    };
  }

  #record(request: RecordedRequest, reply: FakeReply, api: KieApi): void {
    const upgraded = api === 'veo' ? this.#fourKJobs.get(request.query.taskId ?? '') : undefined;
    if (upgraded) {
      reply.json(200, { code: 200, msg: 'success', data: this.#fourKRecord(request.query.taskId ?? '', upgraded) });
      return;
    }
    const job = this.jobs.get(request.query.taskId ?? '');
    if (!job || job.meta.api !== api) {
      reply.json(200, { code: 404, msg: 'recordInfo is null', data: null });
      return;
    }
    reply.json(200, { code: 200, msg: 'success', data: this.recordOf(job, this.phase(job)) });
  }

  /** A task record as recordInfo / record-info show it (and as callbacks carry it). */
  recordOf(job: FakeJob<KieJobMeta>, phase: JobPhase): Record<string, unknown> {
    const failed = phase === 'failed' || phase === 'canceled';
    const failure = this.failureOf(job);
    const { api } = job.meta;
    if (api === 'market') {
      return {
        taskId: job.id,
        model: job.meta.model,
        state: phase === 'queued' ? 'waiting' : phase === 'running' ? 'generating' : phase === 'succeeded' ? 'success' : 'fail',
        param: JSON.stringify(job.meta.body),
        resultJson: phase === 'succeeded' ? JSON.stringify({ resultUrls: this.fileUrls(job) }) : '',
        failCode: failed ? String(failure.code ?? '501') : '',
        failMsg: failed ? failure.message : '',
        costTime: phase === 'succeeded' ? 12 : 0,
        completeTime: phase === 'succeeded' || failed ? Date.now() : null,
        createTime: job.createdAt,
        updateTime: Date.now(),
      };
    }
    if (api === 'veo') {
      return {
        taskId: job.id,
        paramJson: JSON.stringify(job.meta.body),
        response: phase === 'succeeded' ? { taskId: job.id, resultUrls: this.fileUrls(job), originUrls: this.fileUrls(job), resolution: job.meta.resolution ?? '720p' } : null,
        successFlag: phase === 'succeeded' ? 1 : failed ? 3 : 0,
        errorCode: failed ? (failure.code ?? 501) : null,
        errorMessage: failed ? failure.message : '',
        createTime: new Date(job.createdAt).toISOString(),
        fallbackFlag: false,
      };
    }
    const word = failed
      ? String(failure.code && typeof failure.code === 'string' ? failure.code : api === 'lyrics' ? 'GENERATE_LYRICS_FAILED' : 'GENERATE_AUDIO_FAILED')
      : phase === 'succeeded'
        ? 'SUCCESS'
        : phase === 'running'
          ? api === 'music'
            ? 'FIRST_SUCCESS'
            : 'PENDING'
          : 'PENDING';
    const base = {
      taskId: job.id,
      param: JSON.stringify(job.meta.body),
      errorCode: failed ? (typeof failure.code === 'number' ? failure.code : 501) : null,
      errorMessage: failed ? failure.message : null,
    };
    const response = phase === 'succeeded' ? this.#sunoResponse(job) : null;
    if (api === 'music' || api === 'lyrics') return { ...base, status: word, type: api === 'lyrics' ? 'LYRICS' : 'GENERATE', response };
    return { ...base, successFlag: word, response, ...(api === 'midi' && response ? { midiData: response.midiData } : {}) };
  }

  /** Track objects (camelCase, as record-info shows them). */
  tracks(job: FakeJob<KieJobMeta>): Array<Record<string, unknown>> {
    const body = job.meta.body;
    return this.fileUrls(job).map((url, i) => ({
      id: `${job.id}-audio-${i}`,
      audioUrl: url,
      sourceAudioUrl: url,
      streamAudioUrl: `${url}?stream=1`,
      imageUrl: this.fileUrl(job, `cover-${i}.jpg`),
      prompt: body.customMode === true ? String(body.prompt ?? '') : `[Verse]\nLyrics about ${String(body.prompt ?? 'nothing')}`,
      modelName: 'chirp-v5',
      title: String(body.title ?? `Fake Song ${i + 1}`),
      tags: String(body.style ?? 'synthwave, dreamy'),
      createTime: new Date(job.createdAt).toISOString(),
      duration: 1.0 + i,
    }));
  }

  #sunoResponse(job: FakeJob<KieJobMeta>): Record<string, unknown> {
    switch (job.meta.api) {
      case 'music':
        return { taskId: job.id, sunoData: this.tracks(job) };
      case 'lyrics':
        return {
          taskId: job.id,
          lyricsData: [
            { text: `[Verse]\n${String(job.meta.body.prompt)} one`, title: 'Draft One', status: 'complete', errorMessage: '' },
            { text: `[Verse]\n${String(job.meta.body.prompt)} two`, title: 'Draft Two', status: 'complete', errorMessage: '' },
          ],
        };
      case 'wav':
        return { audioWavUrl: this.fileUrl(job, '0.wav') };
      case 'stems': {
        const fields = job.meta.stemType === 'split_stem' ? STEM_FIELDS : ['vocalUrl', 'instrumentalUrl'];
        return { originUrl: this.fileUrl(job, 'origin.mp3'), ...Object.fromEntries(fields.map((f, i) => [f, this.fileUrl(job, `${i}.mp3`)])) };
      }
      case 'mp4':
        return { videoUrl: this.fileUrl(job, '0.mp4') };
      case 'midi':
        return { midiData: { notes: [{ pitch: 60, startS: 0, endS: 0.5 }] } };
      default:
        return {};
    }
  }

  #callback(job: FakeJob<KieJobMeta>, phase: JobPhase): { body: unknown; headers?: Record<string, string> } | undefined {
    const failed = phase !== 'succeeded';
    let body: Record<string, unknown>;
    if (job.meta.api === 'music') {
      body = failed
        ? { code: 501, msg: 'Audio generation failed.', data: { callbackType: 'error', task_id: job.id, data: null } }
        : {
            code: 200,
            msg: 'All generated successfully.',
            data: {
              callbackType: 'complete',
              task_id: job.id,
              data: this.tracks(job).map((t) => ({
                id: t.id,
                audio_url: t.audioUrl,
                stream_audio_url: t.streamAudioUrl,
                image_url: t.imageUrl,
                prompt: t.prompt,
                model_name: t.modelName,
                title: t.title,
                tags: t.tags,
                createTime: t.createTime,
                duration: t.duration,
              })),
            },
          };
    } else {
      body = { code: failed ? 501 : 200, msg: failed ? this.failureOf(job).message : 'success', data: this.recordOf(job, phase) };
    }
    if (!this.webhookHmacKey) return { body };
    const timestamp = String(Math.floor(Date.now() / 1000));
    const signature = createHmac('sha256', this.webhookHmacKey).update(`${job.id}.${timestamp}`).digest('base64');
    return { body, headers: { 'x-webhook-timestamp': timestamp, 'x-webhook-signature': signature } };
  }
}

export async function startKieFake(options: KieFakeOptions = {}): Promise<KieFake> {
  const fake = new KieFake(options);
  await fake.listen();
  return fake;
}
