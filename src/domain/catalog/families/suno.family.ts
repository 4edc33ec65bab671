/** M1 (Suno): per-action rules, billing by action, and what each action produces. */
import type { OutputSpec, ValidatedInput } from '../catalog.types.ts';
import { defineFamily, enumDimension } from '../dsl/family.ts';
import { videoOutput } from '../dsl/output.ts';
import { count, has, numberOf, type RuleContext, refuse, str } from '../dsl/rules.ts';
import { unmetMessage, unmetRequirements } from '../dsl/required-when.ts';
import { AUDIO_ENGINES, CUSTOM_MODE_ACTIONS, LYRICS_ENGINES, SOURCE_ACTIONS, SUNO_ACTION_FIELDS, SUNO_FIELDS } from './suno.fields.ts';
import { SUNO_REQUIRED } from './suno.required.ts';

function action(input: ValidatedInput): string {
  return String(input.action);
}

/** Each action has its own fields; others are refused when given and dropped when only defaulted. */
function onlyActionFields({ input, given }: RuleContext): void {
  const a = action(input);
  const allowed = new Set(['action', ...(SUNO_ACTION_FIELDS[a] ?? [])]);
  for (const name of given) {
    if (!allowed.has(name)) throw refuse(name, `is not used by action ${a}`);
  }
}

function actionNeeds({ input }: RuleContext): void {
  const a = action(input);
  if (SOURCE_ACTIONS.has(a) && has(input, 'sourceTaskId') && has(input, 'audioUrl')) throw refuse('audioUrl', 'cannot be combined with input.sourceTaskId (give one source track)');
  const start = numberOf(input, 'startS');
  const end = numberOf(input, 'endS');
  if (start !== undefined && end !== undefined && end <= start) throw refuse('endS', `must be greater than input.startS (${end} <= ${start})`);
  if (a === 'voice') {
    const upload = ['voiceAudioUrl', 'verificationAudioUrl', 'phraseId'];
    const fromTrack = ['sourceTaskId', 'voxAudioId'];
    const usesUpload = upload.some((f) => has(input, f));
    const usesTrack = fromTrack.some((f) => has(input, f));
    // Which of the two it needs is a published rule (suno.required.ts); giving both is refused here.
    if (usesUpload && usesTrack) throw refuse('voiceAudioUrl', 'cannot be combined with input.sourceTaskId/voxAudioId (a voice comes from a recording or from a track)');
  }
  if (count(input, 'audioIds') > count(input, 'sourceTaskIds')) {
    throw refuse('audioIds', `must not be longer than input.sourceTaskIds (${count(input, 'audioIds')} > ${count(input, 'sourceTaskIds')})`);
  }
}

function engines({ input }: RuleContext): void {
  const a = action(input);
  const mv = str(input, 'mv');
  if (mv !== undefined) {
    const allowed = a === 'lyrics' ? LYRICS_ENGINES : AUDIO_ENGINES;
    if (!allowed.includes(mv)) throw refuse('mv', `must be one of ${allowed.map((v) => JSON.stringify(v)).join(', ')} for action ${a} (got "${mv}")`);
  }
  if (has(input, 'customModel') && mv !== 'custom') throw refuse('customModel', 'is only used when mv is custom');
}

function customMode({ input }: RuleContext): void {
  const a = action(input);
  if (!CUSTOM_MODE_ACTIONS.has(a)) return;
  if (input.custom === true) {
    if (has(input, 'gptDescriptionPrompt')) throw refuse('gptDescriptionPrompt', 'is for simple mode; in custom mode (custom: true) give prompt and tags');
    return;
  }
  for (const f of ['prompt', 'tags']) {
    if (has(input, f)) throw refuse(f, 'is only used in custom mode (custom: true); in simple mode give gptDescriptionPrompt');
  }
}

/** The per-action and per-mode requirements, from the same list the catalog publishes to forms. */
function requirements({ input }: RuleContext): void {
  const unmet = unmetRequirements(SUNO_REQUIRED, input)[0];
  if (!unmet) return;
  const { field, message } = unmetMessage(unmet, input);
  throw refuse(field, message);
}

/** Defaults of fields the action does not use are dropped, so the input holds only what applies. */
function dropUnused({ input }: RuleContext): void {
  const allowed = new Set(['action', ...(SUNO_ACTION_FIELDS[action(input)] ?? [])]);
  for (const key of Object.keys(input)) if (!allowed.has(key)) delete input[key];
}

const SONG_S = 120;
const STEMS_ALL = ['lead_vocal', 'backing_vocals', 'drum_kit', 'bass', 'electric_guitar', 'piano', 'percussion', 'strings', 'synth', 'fx', 'brass', 'woodwinds'];
const DATA: Readonly<Record<string, OutputSpec>> = {
  lyrics: { kind: 'data', dataType: 'lyrics', items: 2 },
  'timestamped-lyrics': { kind: 'data', dataType: 'timestamped-lyrics', items: 1 },
  voice: { kind: 'data', dataType: 'persona', items: 1 },
  'boost-style': { kind: 'data', dataType: 'style', items: 1 },
  upload: { kind: 'data', dataType: 'upload', items: 1 },
  midi: { kind: 'data', dataType: 'midi', items: 1 },
  bpm: { kind: 'data', dataType: 'bpm', items: 1 },
};
const SINGLE_TRACK = new Set(['wav', 'add-stem', 'vox', 'remove-section', 'crop', 'fade-in', 'fade-out', 'adjust-speed', 'concat']);

function m1Output(input: ValidatedInput): OutputSpec {
  const a = action(input);
  const data = DATA[a];
  if (data) return { ...data };
  const section = (numberOf(input, 'endS') ?? 0) - (numberOf(input, 'startS') ?? 0);
  const withLyrics = input.makeInstrumental !== true;
  switch (a) {
    case 'music-video': {
      const resolution = input.quality === 'max' ? '1080p' : input.quality === 'high' ? '720p' : '480p';
      // The first minute of the song: the offline renderer makes clips of at most 60 s.
      return videoOutput({ resolution, aspect: str(input, 'aspectRatio'), durationS: 60, withAudio: true });
    }
    case 'sound':
      return { kind: 'audio', tracks: 2, durationS: input.type === 'loop' ? 8 : 4, format: 'mp3', withLyrics: false };
    case 'stems': {
      const stem = str(input, 'stemType') ?? 'lead_vocal';
      return { kind: 'audio', tracks: 2, durationS: SONG_S, format: 'mp3', withLyrics: false, stems: [stem, `without_${stem}`] };
    }
    case 'stems-all':
      return { kind: 'audio', tracks: STEMS_ALL.length, durationS: SONG_S, format: 'mp3', withLyrics: false, stems: [...STEMS_ALL] };
    case 'vox':
    case 'crop':
      return { kind: 'audio', tracks: 1, durationS: section, format: 'mp3', withLyrics: true };
    case 'remove-section':
      return { kind: 'audio', tracks: 1, durationS: Math.max(1, SONG_S - section), format: 'mp3', withLyrics: true };
    case 'adjust-speed':
      return { kind: 'audio', tracks: 1, durationS: Math.round(SONG_S / (numberOf(input, 'speed') ?? 1)), format: 'mp3', withLyrics: true };
    case 'concat':
      return { kind: 'audio', tracks: 1, durationS: 2 * SONG_S, format: 'mp3', withLyrics: true };
    case 'wav':
      return { kind: 'audio', tracks: 1, durationS: SONG_S, format: 'wav', withLyrics: true };
    default:
      return { kind: 'audio', tracks: SINGLE_TRACK.has(a) ? 1 : 2, durationS: SONG_S, format: 'mp3', withLyrics };
  }
}

export const SUNO = defineFamily({
  id: 'M1',
  type: 'MUSIC',
  fields: SUNO_FIELDS,
  fieldsByChoice: { field: 'action', fields: SUNO_ACTION_FIELDS },
  rules: [onlyActionFields, engines, actionNeeds, customMode, requirements],
  requiredWhen: SUNO_REQUIRED,
  normalize: dropUnused,
  billing: { unit: 'generation', dimensions: { action: enumDimension('action') } },
  output: m1Output,
});
