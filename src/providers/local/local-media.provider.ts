import { createHash } from 'node:crypto';
import type { OutputSpec, ValidatedInput } from '../../domain/catalog/catalog.types.ts';
import type {
  MediaJob,
  MediaProvider,
  MediaProviderFactoryOptions,
  MusicTrackOutput,
  PollOutcome,
  ReconcileOutcome,
  SubmitOutcome,
  UpstreamFile,
  UpstreamResult,
} from '../media/media-provider.ts';
import { localDataOutput } from './local-data-output.ts';
import { renderAudio } from './render/render-audio.ts';
import { renderImage } from './render/render-image.ts';
import { renderSong } from './render/render-music.ts';
import { renderVideo } from './render/render-video.ts';
import { seedFrom } from './render/seeded-random.ts';

export interface LocalProviderOptions {
  /** Time from submit to result; 0 answers synchronously. */
  latencyMs: number;
  /** Share of jobs (0 to 1) that fail, chosen deterministically from the attempt id. */
  failureRate: number;
  /** Where an injected failure shows: at submit, or after the job was accepted (on poll). */
  failAt: 'submit' | 'poll';
  /** How long a submit takes before it answers (a slow upstream; crash tests kill the worker meanwhile). */
  submitDelayMs: number;
}

/**
 * The built-in provider (decision 13): real files made offline, matching what the request asks for
 * (the catalog's output spec: sizes, durations, counts, formats), deterministic for a seed. The
 * upstream id is the attempt id, so it needs no state: a poll re-derives the job, and reconciling an
 * interrupted submit always finds it. Latency and failures are configurable, which makes it the test
 * double for failover.
 */
export class LocalMediaProvider implements MediaProvider {
  readonly name: string;
  readonly type = 'local';
  readonly defaultPollMs: number;
  private readonly options: LocalProviderOptions;
  private readonly acceptedAt = new Map<string, number>();

  constructor(name: string, options: LocalProviderOptions) {
    this.name = name;
    this.options = options;
    this.defaultPollMs = Math.max(5, Math.min(options.latencyMs, 1000));
  }

  async submit(job: MediaJob): Promise<SubmitOutcome> {
    if (this.options.submitDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.options.submitDelayMs));
    if (this.injectedFailure(job) && (this.options.failAt === 'submit' || this.options.latencyMs === 0)) {
      return { kind: 'failed', error: { message: 'local provider: injected failure', retryable: true } };
    }
    if (this.options.latencyMs === 0) return { kind: 'completed', upstreamId: job.attemptId, result: await this.render(job) };
    this.acceptedAt.set(job.attemptId, Date.now());
    return { kind: 'accepted', upstreamId: job.attemptId, pollAfterMs: this.options.latencyMs };
  }

  async poll(job: MediaJob, upstreamId: string): Promise<PollOutcome> {
    const accepted = this.acceptedAt.get(upstreamId) ?? Date.now() - this.options.latencyMs;
    const remaining = accepted + this.options.latencyMs - Date.now();
    if (remaining > 0) return { kind: 'pending', pollAfterMs: remaining };
    this.acceptedAt.delete(upstreamId);
    if (this.injectedFailure(job)) return { kind: 'failed', error: { message: 'local provider: injected failure after acceptance', retryable: true } };
    return { kind: 'completed', result: await this.render(job) };
  }

  async reconcile(job: MediaJob): Promise<ReconcileOutcome> {
    return { kind: 'found', upstreamId: job.attemptId };
  }

  private injectedFailure(job: MediaJob): boolean {
    if (this.options.failureRate <= 0) return false;
    if (this.options.failureRate >= 1) return true;
    const draw = createHash('sha256').update(job.attemptId).digest().readUInt32BE(0) / 0x1_0000_0000;
    return draw < this.options.failureRate;
  }

  private async render(job: MediaJob): Promise<UpstreamResult> {
    const prompt = promptOf(job.input);
    const seed = typeof job.input.seed === 'number' ? job.input.seed : seedFrom(job.taskId);
    return renderSpec(job.outputSpec, job.input, prompt, seed, job.taskId);
  }
}

async function renderSpec(spec: OutputSpec, input: ValidatedInput, prompt: string, seed: number, taskId: string): Promise<UpstreamResult> {
  switch (spec.kind) {
    case 'image': {
      const files: UpstreamFile[] = [];
      for (let i = 0; i < spec.count; i++) {
        const data = await renderImage({ prompt, seed: seed + i, width: spec.width, height: spec.height, format: spec.format });
        files.push({ fileType: 'image', data, contentType: spec.format === 'png' ? 'image/png' : 'image/jpeg' });
      }
      return { files, output: { width: spec.width, height: spec.height } };
    }
    case 'video': {
      const files: UpstreamFile[] = [];
      for (let i = 0; i < spec.count; i++) {
        const data = await renderVideo({ prompt, seed: seed + i, width: spec.width, height: spec.height, durationS: spec.durationS, fps: spec.fps, withAudio: spec.withAudio, format: spec.format });
        files.push({ fileType: 'video', data });
      }
      return { files, output: { width: spec.width, height: spec.height, durationS: spec.durationS, withAudio: spec.withAudio } };
    }
    case 'audio':
      return renderMusic(spec, input, prompt, seed);
    case 'data':
      return { files: [], output: localDataOutput(spec, prompt, seed, taskId) };
  }
}

async function renderMusic(spec: Extract<OutputSpec, { kind: 'audio' }>, input: ValidatedInput, prompt: string, seed: number): Promise<UpstreamResult> {
  if (spec.stems && spec.stems.length > 0) {
    const files: UpstreamFile[] = [];
    for (const [i, stem] of spec.stems.entries()) {
      files.push({ fileType: 'music', data: await renderAudio({ seed: seed + i, durationS: spec.durationS, format: spec.format, title: stem, prompt: `${prompt} ${stem}` }) });
    }
    return { files, output: { stems: spec.stems } };
  }
  const title = typeof input.title === 'string' ? input.title : undefined;
  const tags = typeof input.tags === 'string' ? input.tags.split(',').map((t) => t.trim()).filter(Boolean) : undefined;
  const instrumental = input.makeInstrumental === true || !spec.withLyrics;
  const files: UpstreamFile[] = [];
  const tracks: MusicTrackOutput[] = [];
  for (let made = 0; made < spec.tracks; made += 2) {
    const song = await renderSong({
      prompt,
      seed: seed + made,
      durationS: spec.durationS,
      format: spec.format,
      instrumental,
      ...(title ? { title } : {}),
      ...(tags ? { tags } : {}),
      ...(input.custom === true && typeof input.prompt === 'string' ? { lyrics: input.prompt } : {}),
    });
    for (const track of song.slice(0, spec.tracks - made)) {
      files.push({ fileType: 'music', data: track.audio });
      tracks.push({
        audioId: createHash('sha256').update(`${seed}:${made + track.index}:${prompt}`).digest('hex').slice(0, 24),
        title: track.title,
        duration: track.durationS,
        lyrics: track.lyrics || null,
        tags: track.tags.join(', '),
        coverImageUrls: [`data:image/${track.coverFormat};base64,${track.cover.toString('base64')}`],
      });
    }
  }
  return { files, output: { tracks } };
}

function promptOf(input: ValidatedInput): string {
  for (const field of ['prompt', 'gptDescriptionPrompt', 'description', 'fullLyrics', 'title']) {
    const value = input[field];
    if (typeof value === 'string' && value.trim()) return value;
  }
  return 'untitled';
}

export function createLocalMediaProvider(options: MediaProviderFactoryOptions): LocalMediaProvider {
  const latency = options.options.latencyMs;
  const rate = options.options.failureRate;
  const submitDelay = options.options.submitDelayMs;
  return new LocalMediaProvider(options.name, {
    latencyMs: typeof latency === 'number' && latency >= 0 ? latency : 0,
    failureRate: typeof rate === 'number' && rate >= 0 && rate <= 1 ? rate : 0,
    failAt: options.options.failAt === 'submit' ? 'submit' : 'poll',
    submitDelayMs: typeof submitDelay === 'number' && submitDelay >= 0 ? submitDelay : 0,
  });
}
