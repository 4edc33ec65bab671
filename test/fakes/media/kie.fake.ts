/**
 * A fake kie.ai: Market jobs (`/api/v1/jobs/createTask`, `/api/v1/jobs/recordInfo`), Veo 3.1
 * (`/api/v1/veo/generate`, `/api/v1/veo/record-info`) and the Suno API (generate, extend, uploads,
 * lyrics, wav, vocal removal, mp4, and the synchronous timestamped-lyrics, style and persona calls).
 * kie-style answers: `{code, msg, data}`, errors as a code in a 200 body (except auth, which is a 401).
 * Callbacks are posted to `callBackUrl` and signed with kie's HMAC when `webhookHmacKey` is given.
 */
import { createHmac, randomUUID } from 'node:crypto';
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
}

export interface KieFakeOptions extends FakeUpstreamOptions {
  apiKey?: string;
  webhookHmacKey?: string;
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

const STEM_FIELDS = ['vocalUrl', 'backingVocalsUrl', 'drumsUrl', 'bassUrl', 'guitarUrl', 'keyboardUrl', 'percussionUrl', 'stringsUrl', 'synthUrl', 'fxUrl', 'brassUrl', 'woodwindsUrl'];

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

export class KieFake extends FakeUpstream<KieJobMeta> {
  readonly apiKey: string;
  readonly webhookHmacKey: string | undefined;

  constructor(options: KieFakeOptions = {}) {
    super((request, reply) => this.#handle(request, reply), options);
    this.apiKey = options.apiKey ?? 'kie-test-key';
    this.webhookHmacKey = options.webhookHmacKey;
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
      const api = RECORD_PATHS[path];
      if (api) {
        this.#record(request, reply, api);
        return;
      }
    }
    reply.json(404, { code: 404, msg: `no route ${method} ${path}` });
  }

  #validate(api: KieApi, body: Record<string, unknown>): string | undefined {
    if (api === 'market') {
      if (typeof body.model !== 'string' || body.model === '') return 'model is required';
      if (!asRecord(body.input)) return 'input is required';
      return undefined;
    }
    if (typeof body.callBackUrl !== 'string' || body.callBackUrl === '') return 'callBackUrl is required';
    if (api === 'veo') {
      if (typeof body.prompt !== 'string' || body.prompt === '') return 'prompt is required';
      if (!['TEXT_2_VIDEO', 'FIRST_AND_LAST_FRAMES_2_VIDEO', 'REFERENCE_2_VIDEO'].includes(String(body.generationType))) return 'generationType is invalid';
      return undefined;
    }
    if (api === 'music' && 'customMode' in body) {
      if (typeof body.model !== 'string') return 'model is required';
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
    const problem = this.#validate(api, body);
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
      meta: { api, model, input, body, ...(typeof body.type === 'string' ? { stemType: body.type } : {}) },
    });
    if (behaviour.hangOnSubmit) {
      reply.hang();
      return;
    }
    reply.json(200, { code: 200, msg: 'success', data: { taskId: job.id } });
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

  #record(request: RecordedRequest, reply: FakeReply, api: KieApi): void {
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
        response: phase === 'succeeded' ? { taskId: job.id, resultUrls: this.fileUrls(job), originUrls: this.fileUrls(job), resolution: '1080p' } : null,
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
