/**
 * M1 (Suno): which fields each action and mode requires, as data. The family's validation refuses
 * what misses one (suno.family.ts), and the catalog publishes the same list on the params, from which
 * the dashboard marks required fields and names the missing ones.
 */
import type { RequiredRule } from '../dsl/required-when.ts';
import { CUSTOM_MODE_ACTIONS, SECTION_ACTIONS, SOURCE_ACTIONS } from './suno.fields.ts';

const BY_ACTION: Readonly<Record<string, readonly string[]>> = {
  extend: ['continueAt'],
  cover: ['audioUrl'],
  'add-instrumental': ['audioUrl', 'tags'],
  'add-vocals': ['audioUrl', 'prompt', 'tags'],
  upload: ['audioUrl'],
  sound: ['prompt'],
  lyrics: ['prompt'],
  'boost-style': ['tags'],
  wav: ['sourceTaskId'],
  'timestamped-lyrics': ['sourceTaskId'],
  'music-cover': ['sourceTaskId'],
  'replace-section': ['sourceTaskId', 'prompt'],
  'music-video': ['sourceTaskId'],
  concat: ['sourceTaskId'],
  voice: ['name'],
  'fade-in': ['durationS'],
  'fade-out': ['durationS'],
  'adjust-speed': ['speed'],
  inspo: ['audioUrls'],
  mashup: ['sourceTaskIds'],
};

const CUSTOM = [...CUSTOM_MODE_ACTIONS];

/** A voice comes from a recording (with its verification phrase) or from a vocal clip of a track. */
const VOICE_SOURCES = [
  ['voiceAudioUrl', 'verificationAudioUrl', 'phraseId'],
  ['sourceTaskId', 'voxAudioId', 'startS', 'endS'],
] as const;

/**
 * In the order the service checks them: the source track, each action's own fields, the voice's
 * source, the section, then the mode (custom or simple) and the custom engine.
 */
export const SUNO_REQUIRED: readonly RequiredRule[] = [
  ...[...SOURCE_ACTIONS].map((a): RequiredRule => ({ field: 'sourceTaskId', orFields: ['audioUrl'], when: { action: [a] }, reason: `for action ${a} (the source track)` })),
  ...Object.entries(BY_ACTION).flatMap(([a, fields]) => fields.map((field): RequiredRule => ({ field, when: { action: [a] }, reason: `for action ${a}` }))),
  { field: 'voiceAudioUrl', alternatives: VOICE_SOURCES, when: { action: ['voice'] }, reason: 'for action voice (a recording, or a vocal clip of a track)' },
  ...[...SECTION_ACTIONS].flatMap((a) => ['startS', 'endS'].map((field): RequiredRule => ({ field, when: { action: [a] }, reason: `for action ${a}` }))),
  { field: 'tags', when: { action: CUSTOM, custom: [true] }, reason: 'in custom mode (custom: true)' },
  { field: 'prompt', when: { action: CUSTOM, custom: [true], makeInstrumental: [false] }, reason: 'in custom mode (the lyrics) unless makeInstrumental is true' },
  { field: 'gptDescriptionPrompt', when: { action: ['music'], custom: [false] }, reason: 'in simple mode (custom: false)' },
  { field: 'customModel', when: { mv: ['custom'] }, reason: 'when mv is custom' },
];
