/**
 * The kie Suno API for family M1: one entry per action, naming kie's endpoint, how the body is built
 * from our input, where the task is polled and how its record becomes files and `output`.
 * Actions kie does not offer are `unsupported` (retryable: another route may have them).
 */
import type { ValidatedInput } from '../../../domain/catalog/catalog.types.ts';
import type { MediaJob, MusicTrackOutput, ProviderError, RouteRefusal, RouteRequest, UpstreamFile } from '../media-provider.ts';
import { isHttpUrl } from '../shared/result-files.ts';
import { isRecord, numberAt, recordAt, stringAt } from '../shared/json-values.ts';

export type SunoResultKind = 'tracks' | 'video' | 'lyrics' | 'wav' | 'stems' | 'midi';

export interface SunoAsyncCall {
  kind: 'async';
  path: string;
  recordPath: string;
  result: SunoResultKind;
  body: Record<string, unknown>;
}

export interface SunoSyncCall {
  kind: 'sync';
  path: string;
  body: Record<string, unknown>;
  /** The answer's `data` as our `output`. */
  output: (data: Record<string, unknown>) => Record<string, unknown>;
}

export type SunoCall = SunoAsyncCall | SunoSyncCall | { kind: 'refused'; error: ProviderError };

const ENGINES: Readonly<Record<string, string>> = { 'v3.5': 'V3_5', 'v4.0': 'V4', 'v4.5': 'V4_5', 'v4.5+': 'V4_5PLUS', 'v5.0': 'V5', 'v5.5': 'V5_5' };
export const DEFAULT_SUNO_ENGINE = 'V5';

/** kie's add-instrumental and add-vocals pages: the only engines they take. */
const LAYERING_ENGINES: ReadonlySet<string> = new Set(['V4_5PLUS', 'V5', 'V5_5']);

/**
 * Fields kie's add-instrumental and add-vocals pages mark required that our catalog leaves optional
 * (`title` is filled with "Untitled" instead), and engines those pages do not list: refused before
 * anything is charged, so no one gets a refund after kie's 422 for something we could have known.
 */
export function sunoRefusal(request: RouteRequest): RouteRefusal | undefined {
  const input = request.input;
  const action = String(input.action ?? 'music');
  // kie's generate, extend and upload pages list V4, V4_5, V4_5PLUS, V4_5ALL, V5, V5_5: no V3_5
  // (henjicc/Henji-AI docs/api/KIE/Suno API/Music Generation/171-174 @a4cc65b6, read 2026-12-02).
  if (input.mv === 'v3.5') return { field: 'mv', message: "kie's Suno API has no v3.5 engine (V3_5)" };
  if (action !== 'add-instrumental' && action !== 'add-vocals') return undefined;
  const engine = ENGINES[String(input.mv ?? '')] ?? DEFAULT_SUNO_ENGINE;
  if (!LAYERING_ENGINES.has(engine) || input.mv === 'custom') {
    return { field: 'mv', message: `kie's ${action} takes only the v4.5+, v5.0 and v5.5 engines, not ${String(input.mv)}` };
  }
  if (typeof input.negativeTags !== 'string' || input.negativeTags.trim() === '') {
    return { field: 'negativeTags', message: `kie's ${action} requires negativeTags (the styles to keep out)` };
  }
  return undefined;
}

const MUSIC_RECORD = '/api/v1/generate/record-info';

/** Drops undefined members. */
function clean(body: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined));
}

function refused(message: string, retryable = true): SunoCall {
  return { kind: 'refused', error: { message, retryable, code: retryable ? 'unsupported' : 'not_found' } };
}

/** Style fields shared by the generative actions. */
function generative(input: ValidatedInput): Record<string, unknown> {
  const custom = input.custom === true;
  const gender = input.vocalGender === 'Male' ? 'm' : input.vocalGender === 'Female' ? 'f' : undefined;
  return clean({
    customMode: custom,
    instrumental: input.makeInstrumental === true,
    prompt: custom ? input.prompt : (input.gptDescriptionPrompt ?? input.prompt),
    style: custom ? input.tags : undefined,
    // kie requires a title in custom mode; ours is optional.
    title: input.title ?? (custom ? 'Untitled' : undefined),
    negativeTags: input.negativeTags,
    vocalGender: gender,
    styleWeight: input.styleWeight,
    weirdnessConstraint: input.weirdnessConstraint,
    audioWeight: input.audioWeight,
    personaId: input.personaId,
    model: ENGINES[String(input.mv ?? '')] ?? DEFAULT_SUNO_ENGINE,
  });
}

interface SourceTrack {
  taskId: string;
  audioId: string | undefined;
}

/** The kie task (and track) an action works on, from `sourceTaskId` and `audioId`. */
function sourceTrack(job: MediaJob): SourceTrack | undefined | 'missing-parent' {
  const ours = job.input.sourceTaskId;
  if (typeof ours !== 'string') return undefined;
  const parent = job.parents[ours];
  if (!parent) return 'missing-parent';
  const tracks = parent.output && Array.isArray(parent.output.tracks) ? parent.output.tracks : [];
  const first = tracks[0];
  const firstId = isRecord(first) && typeof first.audioId === 'string' ? first.audioId : undefined;
  const audioId = typeof job.input.audioId === 'string' ? job.input.audioId : firstId;
  return { taskId: parent.upstreamId, audioId };
}

const SPLIT_STEM_FIELDS = [
  ['lead_vocal', 'vocalUrl'],
  ['backing_vocals', 'backingVocalsUrl'],
  ['drum_kit', 'drumsUrl'],
  ['bass', 'bassUrl'],
  ['electric_guitar', 'guitarUrl'],
  ['piano', 'keyboardUrl'],
  ['percussion', 'percussionUrl'],
  ['strings', 'stringsUrl'],
  ['synth', 'synthUrl'],
  ['fx', 'fxUrl'],
  ['brass', 'brassUrl'],
  ['woodwinds', 'woodwindsUrl'],
] as const;

const SEPARATE_VOCAL_FIELDS = [
  ['lead_vocal', 'vocalUrl'],
  ['without_lead_vocal', 'instrumentalUrl'],
] as const;

export function sunoCall(job: MediaJob): SunoCall {
  const input = job.input;
  const action = String(input.action ?? 'music');
  const callBackUrl = job.callbackUrl;
  if (input.mv === 'custom') return refused('kie has no custom Suno models (mv "custom")');
  const refusal = sunoRefusal(job);
  if (refusal) return refused(refusal.message);
  const source = sourceTrack(job);
  if (source === 'missing-parent') return refused(`the source task ${String(input.sourceTaskId)} is not a task of this provider`, false);
  const upload = typeof input.audioUrl === 'string' ? input.audioUrl : undefined;
  const needSource = (): SunoCall | undefined =>
    source ? undefined : refused(`kie's ${action} works on a kie task: give sourceTaskId (an uploaded audioUrl is not supported on this route)`);
  const async = (path: string, result: SunoResultKind, body: Record<string, unknown>, recordPath = MUSIC_RECORD): SunoCall => ({
    kind: 'async',
    path,
    recordPath,
    result,
    body: clean({ ...body, callBackUrl }),
  });
  const fromSource = source ? { taskId: source.taskId, audioId: source.audioId } : {};

  switch (action) {
    case 'music':
      return async('/api/v1/generate', 'tracks', generative(input));
    case 'extend': {
      const { customMode, ...style } = generative(input);
      if (upload) return async('/api/v1/generate/upload-extend', 'tracks', { uploadUrl: upload, defaultParamFlag: customMode, ...style, continueAt: input.continueAt });
      return needSource() ?? async('/api/v1/generate/extend', 'tracks', { defaultParamFlag: customMode, ...style, ...fromSource, continueAt: input.continueAt });
    }
    case 'cover':
      return async('/api/v1/generate/upload-cover', 'tracks', { uploadUrl: upload, ...generative(input) });
    case 'add-instrumental': {
      const { model, negativeTags, styleWeight, weirdnessConstraint, audioWeight, vocalGender } = generative(input);
      return async('/api/v1/generate/add-instrumental', 'tracks', {
        uploadUrl: upload,
        title: input.title ?? 'Untitled',
        tags: input.tags,
        negativeTags,
        model,
        styleWeight,
        weirdnessConstraint,
        audioWeight,
        vocalGender,
      });
    }
    case 'add-vocals': {
      const { model, negativeTags, styleWeight, weirdnessConstraint, audioWeight, vocalGender } = generative(input);
      return async('/api/v1/generate/add-vocals', 'tracks', {
        uploadUrl: upload,
        prompt: input.prompt,
        title: input.title ?? 'Untitled',
        style: input.tags,
        negativeTags,
        model,
        styleWeight,
        weirdnessConstraint,
        audioWeight,
        vocalGender,
      });
    }
    case 'replace-section':
      return (
        needSource() ??
        async('/api/v1/generate/replace-section', 'tracks', {
          ...fromSource,
          prompt: input.prompt,
          tags: input.tags,
          title: input.title ?? 'Untitled',
          negativeTags: input.negativeTags,
          fullLyrics: input.fullLyrics,
          infillStartS: input.startS,
          infillEndS: input.endS,
        })
      );
    case 'lyrics':
      return async('/api/v1/lyrics', 'lyrics', { prompt: input.prompt }, '/api/v1/lyrics/record-info');
    case 'wav':
      return needSource() ?? async('/api/v1/wav/generate', 'wav', fromSource, '/api/v1/wav/record-info');
    case 'stems':
      if ((input.stemType ?? 'lead_vocal') !== 'lead_vocal') return refused(`kie separates only the lead vocal (stemType ${String(input.stemType)})`);
      return needSource() ?? async('/api/v1/vocal-removal/generate', 'stems', { ...fromSource, type: 'separate_vocal' }, '/api/v1/vocal-removal/record-info');
    case 'stems-all':
      return needSource() ?? async('/api/v1/vocal-removal/generate', 'stems', { ...fromSource, type: 'split_stem' }, '/api/v1/vocal-removal/record-info');
    case 'music-video':
      return (
        needSource() ??
        async('/api/v1/mp4/generate', 'video', { ...fromSource, author: input.author, domainName: input.domainName }, '/api/v1/mp4/record-info')
      );
    case 'midi':
      return needSource() ?? async('/api/v1/midi/generate', 'midi', fromSource, '/api/v1/midi/record-info');
    case 'timestamped-lyrics':
      return (
        needSource() ?? {
          kind: 'sync',
          path: '/api/v1/generate/get-timestamped-lyrics',
          body: clean(fromSource),
          output: (data) => ({ alignedWords: data.alignedWords ?? [], waveformData: data.waveformData ?? [], hootCer: data.hootCer }),
        }
      );
    case 'boost-style':
      return {
        kind: 'sync',
        path: '/api/v1/style/generate',
        body: { content: input.tags },
        output: (data) => ({ style: stringAt(data, 'result') ?? '' }),
      };
    case 'voice': {
      if (!source) return refused('kie creates a persona from a kie track only (sourceTaskId); recorded voices are not supported on this route');
      return {
        kind: 'sync',
        path: '/api/v1/generate/generate-persona',
        body: clean({ taskId: source.taskId, audioId: input.voxAudioId ?? source.audioId, name: input.name, description: input.description ?? input.name }),
        output: (data) => ({ personaId: stringAt(data, 'personaId'), name: stringAt(data, 'name'), description: stringAt(data, 'description') }),
      };
    }
    default:
      return refused(`kie has no Suno action ${action}`);
  }
}

/** A kie Suno record's progress word: `status` (music, lyrics) or `successFlag` (wav, stems, mp4, midi). */
export type SunoState = 'pending' | 'success' | 'failed';

export function sunoState(record: Record<string, unknown>): { state: SunoState; word: string } {
  const word = String(record.status ?? record.successFlag ?? 'PENDING').toUpperCase();
  if (word === 'SUCCESS' || word === '1') return { state: 'success', word };
  // The callback to us failed, not the generation: take the result when it is there.
  if (word === 'CALLBACK_EXCEPTION') return { state: record.response ? 'success' : 'failed', word };
  if (word.includes('FAIL') || word.includes('ERROR') || word === '2' || word === '3') return { state: 'failed', word };
  return { state: 'pending', word };
}


/** Files and `output` of a successful record, or why it cannot be read. */
export function sunoResult(kind: SunoResultKind, record: Record<string, unknown>): { files: UpstreamFile[]; output: Record<string, unknown> | null } | string {
  const response = recordAt(record, 'response') ?? {};
  switch (kind) {
    case 'tracks':
    case 'video': {
      const items = Array.isArray(response.sunoData) ? response.sunoData.filter(isRecord) : [];
      if (kind === 'video' || items.length === 0) {
        const video = stringAt(response, 'videoUrl');
        if (video && isHttpUrl(video)) return { files: [{ fileType: 'video', url: video }], output: null };
        if (kind === 'video') return 'the record has no videoUrl';
      }
      const tracks: MusicTrackOutput[] = [];
      const files: UpstreamFile[] = [];
      for (const item of items) {
        const url = stringAt(item, 'audioUrl') ?? stringAt(item, 'audio_url');
        if (!url || !isHttpUrl(url)) continue;
        files.push({ fileType: 'music', url });
        const cover = stringAt(item, 'imageUrl') ?? stringAt(item, 'image_url');
        tracks.push({
          audioId: stringAt(item, 'id') ?? '',
          title: stringAt(item, 'title') ?? '',
          duration: numberAt(item, 'duration') ?? 0,
          lyrics: stringAt(item, 'prompt') ?? null,
          tags: stringAt(item, 'tags') ?? null,
          // Copied to our storage with the files (result-store.ts), so they outlive the upstream's retention.
          coverImageUrls: cover && isHttpUrl(cover) ? [cover] : [],
        });
      }
      if (files.length === 0) return 'the record has no audioUrl';
      return { files, output: { tracks } };
    }
    case 'lyrics': {
      const items = Array.isArray(response.lyricsData) ? response.lyricsData.filter(isRecord) : [];
      const lyrics = items
        .filter((i) => (stringAt(i, 'status') ?? 'complete') === 'complete' && typeof i.text === 'string')
        .map((i) => ({ title: stringAt(i, 'title') ?? '', text: String(i.text) }));
      if (lyrics.length === 0) return 'the record has no complete lyrics';
      return { files: [], output: { lyrics } };
    }
    case 'wav': {
      const url = stringAt(response, 'audioWavUrl') ?? stringAt(response, 'audio_wav_url');
      return url && isHttpUrl(url) ? { files: [{ fileType: 'music', url, contentType: 'audio/wav' }], output: null } : 'the record has no audioWavUrl';
    }
    case 'stems': {
      const fields = 'backingVocalsUrl' in response || 'drumsUrl' in response ? SPLIT_STEM_FIELDS : SEPARATE_VOCAL_FIELDS;
      const files: UpstreamFile[] = [];
      const stems: string[] = [];
      for (const [stem, field] of fields) {
        const url = stringAt(response, field);
        if (url && isHttpUrl(url)) {
          files.push({ fileType: 'music', url });
          stems.push(stem);
        }
      }
      return files.length > 0 ? { files, output: { stems } } : 'the record has no stem URLs';
    }
    case 'midi': {
      const midi = record.midiData ?? response.midiData ?? response;
      return { files: [], output: { midi } };
    }
  }
}
