import { type AudioFormat, renderAudio } from './render-audio.ts';
import { type ImageFormat, renderImage } from './render-image.ts';
import { type SeededRandom, seededRandom, seedFrom } from './seeded-random.ts';

/**
 * A music track of the `local` provider: the audio plus what the music family reports per track
 * (title, duration, tags, lyrics) and a square cover picture. Everything follows from the prompt,
 * the seed and the track index, so a retried task produces the same song.
 */

export interface RenderMusicTrackOptions {
  /** The description (simple mode) or the lyrics / style text (custom mode). */
  prompt: string;
  seed: number;
  /** Which track of the song (the music family returns two); varies melody, title and cover. */
  index?: number;
  durationS: number;
  format: AudioFormat;
  /** Used as given; otherwise made up from the prompt. */
  title?: string;
  /** Used as given; otherwise two or three genre words. */
  tags?: readonly string[];
  /** Used as given (custom mode); otherwise written from the prompt. Ignored when instrumental. */
  lyrics?: string;
  instrumental?: boolean;
  /** Cover side in pixels; default 512. */
  coverSize?: number;
  /** Default jpeg. */
  coverFormat?: ImageFormat;
}

export interface MusicTrack {
  index: number;
  audio: Buffer;
  format: AudioFormat;
  title: string;
  durationS: number;
  tags: string[];
  /** Empty for an instrumental. */
  lyrics: string;
  cover: Buffer;
  coverFormat: ImageFormat;
  coverSize: number;
}

const ADJECTIVES = ['Neon', 'Silver', 'Midnight', 'Golden', 'Electric', 'Velvet', 'Paper', 'Crystal', 'Hollow', 'Wild', 'Quiet', 'Burning', 'Faded', 'Endless', 'Broken', 'Sunlit'];
const NOUNS = ['Harbor', 'Skyline', 'Echoes', 'Garden', 'Highway', 'Lanterns', 'Tides', 'Satellites', 'Rivers', 'Mirrors', 'Embers', 'Horizon', 'Letters', 'Shadows', 'Parade', 'Weather'];
const GENRES = ['pop', 'indie', 'synthwave', 'lo-fi', 'folk', 'house', 'ambient', 'rock', 'soul', 'jazz', 'dream pop', 'funk', 'chillhop', 'disco'];
const MOODS = ['upbeat', 'melancholic', 'dreamy', 'energetic', 'warm', 'nocturnal', 'hopeful'];
const FILLER = ['light', 'night', 'road', 'heart', 'sky', 'fire', 'rain', 'home', 'time', 'dream', 'song', 'sea'];
const LINE_TEMPLATES = [
  'I saw the {a} in the {b} tonight',
  'We keep on running to the {a}',
  'Every {a} is calling out my name',
  'Hold the {a}, let the {b} go',
  'Under the {a} we were young',
  'Tell me the {a} will stay the same',
  'All of the {a} and all of the {b}',
  'Carry the {a} across the {b}',
  'Nothing but {a} and a little {b}',
  'Find me where the {a} begins',
];

function titleCase(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1).toLowerCase();
}

/** Words of the prompt worth singing about: letters only, four or more, first occurrence first. */
function keywords(prompt: string): string[] {
  const seen = new Set<string>();
  for (const word of prompt.toLowerCase().match(/\p{L}{4,}/gu) ?? []) seen.add(word);
  return [...seen].slice(0, 24);
}

export function makeTitle(random: SeededRandom, prompt: string): string {
  const words = keywords(prompt);
  const noun = words.length > 0 && random.next() < 0.6 ? titleCase(random.pick(words)) : random.pick(NOUNS);
  return `${random.pick(ADJECTIVES)} ${noun}`;
}

export function makeTags(random: SeededRandom): string[] {
  const first = random.pick(GENRES);
  let second = random.pick(GENRES);
  if (second === first) second = GENRES[(GENRES.indexOf(first) + 1) % GENRES.length] as string;
  return [first, second, random.pick(MOODS)];
}

/** Two verses and a chorus sung twice, built from the prompt's words. */
export function makeLyrics(random: SeededRandom, prompt: string): string {
  const words = keywords(prompt);
  const pool = words.length >= 2 ? words : [...words, ...FILLER];
  const line = (): string => {
    const template = random.pick(LINE_TEMPLATES);
    return template.replace('{a}', random.pick(pool)).replace('{b}', random.pick(FILLER));
  };
  const stanza = (count: number): string => Array.from({ length: count }, line).join('\n');
  const chorus = stanza(4);
  return ['[Verse 1]', stanza(4), '', '[Chorus]', chorus, '', '[Verse 2]', stanza(4), '', '[Chorus]', chorus].join('\n');
}

export async function renderMusicTrack(options: RenderMusicTrackOptions): Promise<MusicTrack> {
  const index = options.index ?? 0;
  const trackSeed = seedFrom('track', options.prompt, options.seed, index);
  const random = seededRandom(trackSeed);
  const title = options.title?.trim() ? options.title.trim() : makeTitle(random, options.prompt);
  const tags = options.tags && options.tags.length > 0 ? [...options.tags] : makeTags(random);
  const lyrics = options.instrumental ? '' : options.lyrics?.trim() ? options.lyrics.trim() : makeLyrics(random, options.prompt);
  const coverSize = options.coverSize ?? 512;
  const coverFormat = options.coverFormat ?? 'jpeg';
  const [audio, cover] = await Promise.all([
    renderAudio({ seed: trackSeed, durationS: options.durationS, format: options.format, title, tags, prompt: options.prompt }),
    renderImage({ prompt: title, seed: trackSeed, width: coverSize, height: coverSize, format: coverFormat }),
  ]);
  return { index, audio, format: options.format, title, durationS: options.durationS, tags, lyrics, cover, coverFormat, coverSize };
}

/** The two tracks of one song (as the music family returns them): same prompt, tracks 0 and 1. */
export async function renderSong(options: Omit<RenderMusicTrackOptions, 'index'>): Promise<[MusicTrack, MusicTrack]> {
  const first = await renderMusicTrack({ ...options, index: 0 });
  const second = await renderMusicTrack({ ...options, index: 1 });
  return [first, second];
}
