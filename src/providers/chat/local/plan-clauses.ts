/**
 * The local planner's reading of a request: plain English split into media clauses ("an image of a
 * red fox in the snow", "a 5 second video of waves, then music for it"). It is a small set of word
 * rules, not a language model; docs/local-planner.md lists them.
 */

export type ClauseKind = 'image' | 'video' | 'music';

export interface Clause {
  kind: ClauseKind;
  /** The text for the generation: the clause without its lead-in, article, count or length. */
  prompt: string;
  /** What the clause is about (after "of", "showing", "about"), for later back-references. */
  subject: string;
  durationSeconds?: number;
  aspectRatio?: string;
  instrumental?: boolean;
  title?: string;
  /** A catalog id the clause names, from the tool's list. */
  model?: string;
  /** The clause points back at an earlier result ("music for it", "a video of the image"). */
  refersBack: boolean;
}

/** Model ids each kind of clause may name (the tool schemas' enums). */
export type ModelIds = Record<ClauseKind, readonly string[]>;

const NOUNS: Record<ClauseKind, readonly string[]> = {
  image: ['image', 'picture', 'photo', 'photograph', 'illustration', 'drawing', 'painting', 'poster', 'logo', 'icon', 'artwork', 'wallpaper', 'sketch', 'render'],
  video: ['video', 'clip', 'animation', 'film', 'movie', 'footage', 'trailer'],
  music: ['music', 'song', 'jingle', 'tune', 'soundtrack', 'melody', 'track', 'anthem', 'lullaby'],
};
/** A noun must come within this many words of a clause's start to open a media clause. */
const NOUN_WITHIN_WORDS = 7;
/** After "and" or a comma, a new clause must name its medium sooner ("and a short jingle"). */
const SPLIT_NOUN_WITHIN_WORDS = 4;
const MAX_COPIES = 4;

const NUMBER_WORDS: Record<string, number> = {
  one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10,
  eleven: 11, twelve: 12, fifteen: 15, twenty: 20, thirty: 30, sixty: 60,
};
const NUMBER = `(\\d+(?:\\.\\d+)?|${Object.keys(NUMBER_WORDS).join('|')})`;
const DURATION = new RegExp(`\\b${NUMBER}\\s*-?\\s*(s|secs?|seconds?|mins?|minutes?)\\b(?:\\s+long)?`, 'i');
const RATIO = /\b(?:in\s+)?(\d{1,2}:\d{1,2})\b(?:\s+format)?/i;
const LEAD_IN =
  /^(?:(?:hi|hello|hey|ok|okay|please|now|also|and|so|next|finally|first|lastly)[\s,!]+)*(?:(?:can|could|would|will) you\s+)?(?:please\s+)?(?:(?:i(?:'d| would)? (?:like|want|need)|give me|make me|create me|get me|show me|let's have|let me have|generate|make|create|render|draw|paint|produce|compose|write|film|shoot|design|add|do)\s+)?(?:me\s+)?/i;
const ARTICLE = /^(?:a|an|the|some|another|one more)\s+/i;
const COUNT = new RegExp(`^(${Object.keys(NUMBER_WORDS).slice(1, MAX_COPIES).join('|')}|[2-${MAX_COPIES}])\\s+`, 'i');
export const BACK_REFERENCE = /\b(?:it|them)\b|\b(?:this|that)(?=\s*$|[,.!?])|\bthe (?:same )?(?:image|picture|photo|video|clip|song|music|jingle|one)\b/i;
const TITLE = /\b(?:called|titled|named)\s+["“']([^"”']{1,80})["”']/i;

/** Splits a request into media clauses, in order; text that names no media is left out. */
export function parseClauses(text: string, models: ModelIds): Clause[] {
  const clauses: Clause[] = [];
  for (const piece of clausePieces(text)) {
    const kind = mediaKind(piece);
    if (!kind) continue;
    const { clause, copies } = readClause(piece, kind, models);
    for (let i = 0; i < copies; i++) clauses.push({ ...clause });
  }
  return clauses;
}

/** Sentences and "then" steps, each cut further at "and"/"," where a new media noun starts. */
function clausePieces(text: string): string[] {
  const steps = text
    .replace(/\s+/g, ' ')
    .split(/(?<=[.;!?])\s+|\s*[;]\s*|,?\s*\b(?:and then|then|after that|afterwards|followed by|and finally|finally)\b\s*,?\s*/i)
    .filter((s) => s.trim() !== '');
  const pieces: string[] = [];
  for (const step of steps) {
    let current = '';
    for (const part of step.split(/(\s*,\s*(?:and\s+|plus\s+)?|\s+and\s+(?:also\s+)?|\s+plus\s+|\s+as well as\s+)/i)) {
      if (/^\s*,|^\s+(?:and|plus|as well as)\b/i.test(part)) {
        current += part;
        continue;
      }
      // "an image of salt and pepper" stays one clause; "an image of a fox and a jingle" is two.
      const opensClause = current !== '' && mediaKind(part, SPLIT_NOUN_WITHIN_WORDS) !== undefined && mediaKind(current) !== undefined;
      if (opensClause) {
        pieces.push(trimJoint(current));
        current = part;
      } else current += part;
    }
    if (current.trim() !== '') pieces.push(trimJoint(current));
  }
  return pieces;
}

function trimJoint(piece: string): string {
  return piece.replace(/(?:\s*,\s*(?:and|plus)?|\s+and(?:\s+also)?|\s+plus|\s+as well as)\s*$/i, '').replace(/[.!?]+$/, '').trim();
}

/** The kind of the first media noun among the piece's first words, if any. */
function mediaKind(piece: string, within = NOUN_WITHIN_WORDS): ClauseKind | undefined {
  const words = piece.toLowerCase().replace(/[^a-z0-9:\s-]/g, ' ').split(/[\s-]+/).filter(Boolean).slice(0, within);
  for (const word of words) {
    const singular = word.replace(/s$/, '');
    for (const kind of ['image', 'video', 'music'] as const) {
      if (NOUNS[kind].includes(word) || NOUNS[kind].includes(singular)) return kind;
    }
  }
  return undefined;
}

function readClause(piece: string, kind: ClauseKind, models: ModelIds): { clause: Clause; copies: number } {
  let text = piece.trim();
  const clause: Clause = { kind, prompt: '', subject: '', refersBack: false };

  const model = namedModel(text, models[kind]);
  if (model) {
    clause.model = model.id;
    text = text.replace(model.pattern, ' ');
  }
  const duration = DURATION.exec(text);
  if (duration?.[1] && duration[2]) {
    const seconds = numberOf(duration[1]) * (/^m/i.test(duration[2]) ? 60 : 1);
    if (kind === 'video' && seconds > 0) clause.durationSeconds = seconds;
    if (kind !== 'music') text = text.replace(duration[0], ' ');
  }
  const ratio = RATIO.exec(text);
  if (ratio?.[1] && kind !== 'music') {
    clause.aspectRatio = ratio[1];
    text = text.replace(ratio[0], ' ');
  } else if (kind !== 'music') {
    const shape = aspectFromWords(text);
    if (shape) clause.aspectRatio = shape;
  }
  if (kind === 'music') {
    if (/\binstrumental\b|\bno (?:vocals|lyrics|singing)\b|\bwithout (?:vocals|lyrics|singing|words)\b/i.test(text)) clause.instrumental = true;
    else if (/\bwith (?:vocals|lyrics|singing|words)\b|\bsung\b/i.test(text)) clause.instrumental = false;
    const title = TITLE.exec(text);
    if (title?.[1]) clause.title = title[1].trim();
  }
  clause.refersBack = BACK_REFERENCE.test(text);

  text = text.replace(/\s+/g, ' ').trim().replace(LEAD_IN, '').replace(ARTICLE, '');
  let copies = 1;
  const count = COUNT.exec(text);
  if (count?.[1] && kind === 'image') {
    copies = Math.min(MAX_COPIES, numberOf(count[1]));
    text = text.slice(count[0].length);
  }
  text = text.replace(/\s+([,.!?])/g, '$1').replace(/\s+/g, ' ').replace(/^[,\s]+|[,\s]+$/g, '').replace(/[.!?]+$/, '');
  clause.prompt = text === '' ? kind : text;
  const about = /\b(?:of|showing|about|featuring|for|with)\s+(.+)$/i.exec(clause.prompt);
  clause.subject = about?.[1] ?? clause.prompt;
  return { clause, copies };
}

function namedModel(text: string, ids: readonly string[]): { id: string; pattern: RegExp } | undefined {
  const sorted = [...ids].sort((a, b) => b.length - a.length);
  for (const id of sorted) {
    const spelled = id.toLowerCase().split(/[-_.\s]+/).map(escapeRegExp).join('[-_.\\s]?');
    // "using the model veo 3.1 fast", "with the nano banana 2 model": the model words go with the id.
    const pattern = new RegExp(`(?:\\s*\\b(?:with|using|on|via|by|through)\\s+(?:the\\s+)?)?(?:\\s*\\b(?:the\\s+)?model\\s+)?\\b${spelled}\\b(?:\\s+model\\b)?`, 'i');
    if (pattern.test(text)) return { id, pattern };
  }
  return undefined;
}

function aspectFromWords(text: string): string | undefined {
  if (/\b(?:vertical|portrait|tall|story|stories|reel|tiktok)\b/i.test(text)) return '9:16';
  if (/\b(?:landscape|widescreen|horizontal|cinematic|youtube)\b/i.test(text)) return '16:9';
  if (/\bsquare\b/i.test(text)) return '1:1';
  return undefined;
}

function numberOf(token: string): number {
  const word = NUMBER_WORDS[token.toLowerCase()];
  return word ?? Number(token);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
