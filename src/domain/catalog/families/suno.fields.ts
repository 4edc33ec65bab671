/** M1 (Suno): the fields, and which fields each action uses. Rules and outputs are in suno.family.ts. */
import type { FieldDef, OptionDef } from '../dsl/field.types.ts';
import { bool, choice, int, list, mediaUrl, mediaUrls, num, object, taskId, taskIds, text } from '../dsl/fields.ts';

export const SUNO_ACTIONS: OptionDef[] = [
  { value: 'music', label: 'Create a song', caps: ['music-generation'] },
  { value: 'extend', label: 'Extend a track', caps: ['audio-extension'] },
  { value: 'cover', label: 'Cover uploaded audio', caps: ['cover'] },
  { value: 'add-instrumental', label: 'Add an instrumental', caps: ['instrumental'] },
  { value: 'add-vocals', label: 'Add vocals', caps: ['vocals'] },
  { value: 'sound', label: 'Sound effect', caps: ['sound-effects'] },
  { value: 'stems', label: 'Split into vocals and music', caps: ['stem-separation'] },
  { value: 'stems-all', label: 'Split into all stems', caps: ['stem-separation'] },
  { value: 'wav', label: 'Convert to WAV', caps: ['audio-editing'] },
  { value: 'lyrics', label: 'Write lyrics', caps: ['lyrics'] },
  { value: 'voice', label: 'Create a voice', caps: ['voice-persona'] },
  { value: 'timestamped-lyrics', label: 'Timestamped lyrics', caps: ['timestamped-lyrics'] },
  { value: 'boost-style', label: 'Boost a style', caps: ['music-generation'] },
  { value: 'music-cover', label: 'Cover a track', caps: ['cover'] },
  { value: 'replace-section', label: 'Replace a section', caps: ['audio-editing'] },
  { value: 'music-video', label: 'Music video', caps: ['music-video'] },
  { value: 'inspo', label: 'Inspired by tracks', caps: ['audio-reference'] },
  { value: 'upload', label: 'Upload and extend', caps: ['audio-upload'] },
  { value: 'remaster', label: 'Remaster', caps: ['remaster'] },
  { value: 'add-stem', label: 'Add a stem', caps: ['audio-editing'] },
  { value: 'vox', label: 'Isolate vocals', caps: ['stem-separation'] },
  { value: 'remove-section', label: 'Remove a section', caps: ['audio-editing'] },
  { value: 'crop', label: 'Crop', caps: ['audio-editing'] },
  { value: 'fade-in', label: 'Fade in', caps: ['audio-editing'] },
  { value: 'fade-out', label: 'Fade out', caps: ['audio-editing'] },
  { value: 'adjust-speed', label: 'Change speed', caps: ['audio-editing'] },
  { value: 'concat', label: 'Join tracks', caps: ['audio-editing'] },
  { value: 'mashup', label: 'Mash up two tracks', caps: ['mashup'] },
  { value: 'sample', label: 'Sample', caps: ['music-generation'] },
  { value: 'midi', label: 'Convert to MIDI', caps: ['midi'] },
  { value: 'bpm', label: 'Detect tempo (BPM)', caps: ['bpm-detection'] },
];

export const AUDIO_ENGINES = ['v3.5', 'v4.0', 'v4.5', 'v4.5+', 'v5.0', 'v5.5', 'custom'];
export const LYRICS_ENGINES = ['remi-v1', 'default'];

const KEYS = ['C', 'C#', 'D', 'D#', 'E', 'F', 'F#', 'G', 'G#', 'A', 'A#', 'B'];

export const SUNO_FIELDS: FieldDef[] = [
  choice('action', SUNO_ACTIONS, { default: 'music', description: 'Operation; each action uses its own subset of the fields (see docs).' }),
  choice('mv', [...AUDIO_ENGINES, ...LYRICS_ENGINES], {
    label: 'Model version',
    description: 'Engine version: v3.5 to v5.5 or custom for audio actions; remi-v1 or default for lyrics.',
  }),
  bool('custom', { default: false, description: 'Custom mode (prompt holds lyrics, tags the style) instead of simple mode (gptDescriptionPrompt).' }),
  text('gptDescriptionPrompt', { prompt: true, multiline: true, label: 'Description', description: 'Simple mode: what the song is about.' }),
  text('prompt', { prompt: true, multiline: true, description: 'Custom mode lyrics or description; the request text of lyrics, sound and add-vocals.' }),
  text('tags', { maxLength: 1000, description: 'Custom mode style, e.g. "synthwave, female vocals".' }),
  text('title', { maxLength: 200, description: 'Song title.' }),
  bool('makeInstrumental', { default: false, caps: ['instrumental'], description: 'No vocals.' }),
  text('negativeTags', { maxLength: 1000, description: 'Styles to avoid.' }),
  text('personaId', { maxLength: 200, description: 'A persona (voice) created with action voice.' }),
  object(
    'customModel',
    [
      text('name', { required: true, maxLength: 100, description: 'Name of the custom model.' }),
      mediaUrls('audioUrls', 'audio', { required: true, minItems: 6, maxItems: 24, description: '6 to 24 training tracks.' }),
    ],
    { description: 'Custom model {name, audioUrls}; required when mv is custom.' },
  ),
  mediaUrl('audioUrl', 'audio', { description: 'Uploaded audio to work on (cover, add-instrumental, add-vocals, upload, and track actions).' }),
  num('continueAt', { minimum: 0, maximum: 3600, description: 'Second of the source track to continue from (extend): below the track\u2019s length; Extend on a track fills in its last whole second.' }),
  taskId('sourceTaskId', { caps: ['follow-up'], description: 'taskId of an earlier generation to work on.' }),
  text('audioId', { maxLength: 200, description: 'Track id from output.tracks[].audioId; the first track when omitted.' }),
  text('fullLyrics', { multiline: true, description: 'The whole song lyrics after the replacement (replace-section).' }),
  text('author', { maxLength: 50, description: 'Author shown in the music video.' }),
  text('domainName', { maxLength: 50, description: 'Domain shown in the music video.' }),
  choice('aspectRatio', ['9:16', '16:9', '1:1', '3:4', '4:3'], { default: '9:16', description: 'Shape of the music video.' }),
  list('backgroundColors', { type: 'string', format: 'hex-color' }, { minItems: 1, maxItems: 4, description: '1 to 4 hex colours for the music video.' }),
  mediaUrl('imageUrl', 'image', { description: 'Cover image of the music video.' }),
  choice('quality', ['compact', 'high', 'max'], { default: 'compact', description: 'Quality of the music video.' }),
  num('startS', { minimum: 0, maximum: 3600, label: 'Start (s)', description: 'Start of the section, seconds.' }),
  num('endS', { minimum: 0, maximum: 3600, label: 'End (s)', description: 'End of the section, seconds; greater than startS.' }),
  int('bpm', { minimum: 1, maximum: 300, label: 'BPM', description: 'Tempo of the sound.' }),
  choice('key', [...KEYS, ...KEYS.map((k) => `${k}m`)], { description: 'Key of the sound: C to B (major) or Cm to Bm (minor).' }),
  choice('type', ['one-shot', 'loop'], { default: 'one-shot', description: 'Kind of sound.' }),
  mediaUrl('voiceAudioUrl', 'audio', { description: 'Recording of the voice (voice).' }),
  mediaUrl('verificationAudioUrl', 'audio', { description: 'Recording of the verification phrase (voice).' }),
  text('phraseId', { maxLength: 200, description: 'Id of the verification phrase that was read (voice).' }),
  text('name', { maxLength: 100, description: 'Name of the voice (voice).' }),
  text('description', { maxLength: 1000, description: 'Description of the voice (voice).' }),
  text('styles', { maxLength: 1000, description: 'Styles the voice suits (voice).' }),
  choice('singerSkillLevel', ['Beginner', 'Intermediate', 'Advanced', 'Professional'], { description: 'Skill of the singer (voice).' }),
  mediaUrls('audioUrls', 'audio', { minItems: 1, maxItems: 4, description: '1 to 4 tracks to draw inspiration from (inspo).' }),
  num('styleWeight', { minimum: 0, maximum: 1, description: 'Adherence to the style, 0.00 to 1.00.' }),
  num('weirdnessConstraint', { minimum: 0, maximum: 1, description: 'Creativity, 0.00 to 1.00.' }),
  num('audioWeight', { minimum: 0, maximum: 1, description: 'Weight of the input audio, 0.00 to 1.00.' }),
  choice('vocalGender', ['Male', 'Female'], { description: 'Preferred vocal gender.' }),
  bool('autoLyrics', { description: 'Write lyrics automatically (inspo).' }),
  choice('variationCategory', ['subtle', 'normal', 'high'], { description: 'How much a remaster may change (remaster).' }),
  text('stemType', { maxLength: 50, default: 'lead_vocal', description: 'Stem: lead_vocal, backing_vocals, drum_kit, bass, piano, electric_guitar, ...' }),
  text('voxAudioId', { maxLength: 200, description: 'Vocal clip (from action vox) to build a voice from; startS/endS must match its range.' }),
  num('durationS', { minimum: 0.1, maximum: 60, label: 'Duration (s)', description: 'Fade length in seconds (fade-in, fade-out).' }),
  num('speed', { minimum: 0.25, maximum: 4, description: 'Speed factor, 0.25 to 4 (adjust-speed).' }),
  bool('keepPitch', { default: true, description: 'Keep the pitch when changing speed (adjust-speed).' }),
  taskIds('sourceTaskIds', { minItems: 2, maxItems: 2, description: 'Exactly 2 earlier generations (mashup).' }),
  list('audioIds', { type: 'string', maxLength: 200 }, { maxItems: 2, description: 'Track ids parallel to sourceTaskIds; an omitted entry means that source\u2019s first track.' }),
];

/** Fields of the generative actions (custom or simple mode). */
const GENERATIVE = [
  'mv',
  'custom',
  'gptDescriptionPrompt',
  'prompt',
  'tags',
  'title',
  'makeInstrumental',
  'negativeTags',
  'personaId',
  'customModel',
  'styleWeight',
  'weirdnessConstraint',
  'audioWeight',
  'vocalGender',
];
/** A source track: an earlier generation (and which of its tracks) or an uploaded URL. */
const SOURCE = ['sourceTaskId', 'audioId', 'audioUrl'];
const SECTION = ['startS', 'endS'];

/** The fields each action uses besides `action`; anything else is refused (defaults are dropped). */
export const SUNO_ACTION_FIELDS: Readonly<Record<string, readonly string[]>> = {
  music: GENERATIVE,
  extend: [...GENERATIVE, ...SOURCE, 'continueAt'],
  cover: [...GENERATIVE, 'audioUrl'],
  'add-instrumental': [...GENERATIVE, 'audioUrl'],
  'add-vocals': [...GENERATIVE, 'audioUrl'],
  sound: ['mv', 'prompt', 'title', 'bpm', 'key', 'type'],
  stems: [...SOURCE, 'stemType'],
  'stems-all': SOURCE,
  wav: ['sourceTaskId', 'audioId'],
  lyrics: ['mv', 'prompt'],
  voice: ['voiceAudioUrl', 'verificationAudioUrl', 'phraseId', 'name', 'description', 'styles', 'singerSkillLevel', 'sourceTaskId', 'voxAudioId', ...SECTION],
  'timestamped-lyrics': ['sourceTaskId', 'audioId'],
  'boost-style': ['tags'],
  'music-cover': [...GENERATIVE, 'sourceTaskId', 'audioId'],
  'replace-section': [...GENERATIVE, 'sourceTaskId', 'audioId', 'fullLyrics', ...SECTION],
  'music-video': ['sourceTaskId', 'audioId', 'author', 'domainName', 'aspectRatio', 'backgroundColors', 'imageUrl', 'quality'],
  inspo: [...GENERATIVE, 'audioUrls', 'autoLyrics'],
  upload: ['audioUrl', 'title'],
  remaster: [...SOURCE, 'mv', 'variationCategory'],
  'add-stem': [...SOURCE, ...GENERATIVE, 'stemType'],
  vox: [...SOURCE, ...SECTION],
  'remove-section': [...SOURCE, ...SECTION],
  crop: [...SOURCE, ...SECTION],
  'fade-in': [...SOURCE, 'durationS'],
  'fade-out': [...SOURCE, 'durationS'],
  'adjust-speed': [...SOURCE, 'speed', 'keepPitch'],
  concat: ['sourceTaskId', 'audioId'],
  mashup: [...GENERATIVE, 'sourceTaskIds', 'audioIds'],
  sample: [...GENERATIVE, ...SOURCE, ...SECTION],
  midi: SOURCE,
  bpm: SOURCE,
};

/** Actions whose prompt/tags follow custom mode (custom: true) or simple mode (gptDescriptionPrompt). */
export const CUSTOM_MODE_ACTIONS: ReadonlySet<string> = new Set(['music', 'extend', 'cover', 'music-cover', 'inspo', 'mashup', 'sample']);

/** Actions that need a source track: sourceTaskId or audioUrl. */
export const SOURCE_ACTIONS: ReadonlySet<string> = new Set(
  Object.entries(SUNO_ACTION_FIELDS)
    .filter(([, fields]) => fields.includes('sourceTaskId') && fields.includes('audioUrl'))
    .map(([a]) => a),
);

/** Actions that need startS and endS. */
export const SECTION_ACTIONS: ReadonlySet<string> = new Set(['replace-section', 'vox', 'remove-section', 'crop', 'sample']);
