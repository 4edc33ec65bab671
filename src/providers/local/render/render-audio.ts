import { randomBytes } from 'node:crypto';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { endianness, tmpdir } from 'node:os';
import { join } from 'node:path';
import { FfmpegError, ffmpegPath, runFfmpeg } from './ffmpeg-path.ts';
import { type SeededRandom, seededRandom, seedFrom } from './seeded-random.ts';

/**
 * Offline audio for the `local` provider: a seeded melody over a bass line, synthesised in
 * JavaScript (so WAV needs no ffmpeg and every sample is reproducible), encoded to MP3 by ffmpeg's
 * libmp3lame. The PCM is exactly `round(durationS × sampleRate)` samples long.
 */

export type AudioFormat = 'mp3' | 'wav';

export interface RenderAudioOptions {
  seed: number;
  durationS: number;
  format: AudioFormat;
  /** Written into the file (ID3 `TIT2` for MP3, RIFF `INAM` for WAV). */
  title?: string;
  /** Written as the genre (ID3 `TCON`, RIFF `IGNR`), comma-separated. */
  tags?: readonly string[];
  /** Varies the melody with the prompt as well as the seed. */
  prompt?: string;
  /** Limit for the MP3 encoder; default 60 s plus 1 s per 10 s of audio. */
  timeoutMs?: number;
}

/** Longest audio rendered, in seconds. */
export const MAX_AUDIO_SECONDS = 600;
export const AUDIO_SAMPLE_RATE = 44_100;

export interface MelodyOptions {
  seed: number;
  durationS: number;
  sampleRate: number;
  prompt?: string;
}

export function assertAudioDuration(durationS: number): void {
  if (!Number.isFinite(durationS) || durationS <= 0 || durationS > MAX_AUDIO_SECONDS) {
    throw new RangeError(`durationS must be more than 0 and at most ${MAX_AUDIO_SECONDS}, got ${durationS}`);
  }
}

export async function renderAudio(options: RenderAudioOptions): Promise<Buffer> {
  assertAudioDuration(options.durationS);
  if (options.format !== 'mp3' && options.format !== 'wav') throw new RangeError(`unsupported audio format ${String(options.format)}`);
  const samples = await synthesizeMelody({
    seed: options.seed,
    durationS: options.durationS,
    sampleRate: AUDIO_SAMPLE_RATE,
    ...(options.prompt === undefined ? {} : { prompt: options.prompt }),
  });
  const genre = options.tags && options.tags.length > 0 ? options.tags.join(', ') : undefined;
  if (options.format === 'wav') return encodeWav(samples, AUDIO_SAMPLE_RATE, { title: options.title, genre });
  return encodeMp3(encodeWav(samples, AUDIO_SAMPLE_RATE), {
    title: options.title,
    genre,
    timeoutMs: options.timeoutMs ?? 60_000 + options.durationS * 100,
  });
}

// One period of a sine, read with linear interpolation: several times faster than Math.sin per
// sample, and bit-identical everywhere.
const TABLE_SIZE = 4096;
const SINE = Float64Array.from({ length: TABLE_SIZE + 1 }, (_, i) => Math.sin((2 * Math.PI * i) / TABLE_SIZE));

function sineAt(phase: number): number {
  const x = (phase - Math.floor(phase)) * TABLE_SIZE;
  const i = Math.floor(x);
  const a = SINE[i] as number;
  return a + ((SINE[i + 1] as number) - a) * (x - i);
}

const MAJOR_PENTATONIC = [0, 2, 4, 7, 9];
const MINOR_PENTATONIC = [0, 3, 5, 7, 10];
const MAJOR_PROGRESSIONS = [[0, 7, 9, 5], [0, 5, 7, 5], [0, 9, 5, 7]];
const MINOR_PROGRESSIONS = [[0, 8, 3, 10], [0, 5, 8, 7], [0, 10, 8, 7]];

interface Note {
  start: number;
  length: number;
  frequency: number;
  level: number;
  /** Seconds for the level to fall by 1/e: short for plucks, long for the bass. */
  decay: number;
  harmonics: readonly number[];
}

function midiToHz(note: number): number {
  return 440 * 2 ** ((note - 69) / 12);
}

/** The notes of the piece, in samples: an eighth-note melody on a pentatonic scale, a bass note per beat. */
function compose(random: SeededRandom, totalSamples: number, sampleRate: number): Note[] {
  const minor = random.next() < 0.5;
  const scale = minor ? MINOR_PENTATONIC : MAJOR_PENTATONIC;
  const progression = random.pick(minor ? MINOR_PROGRESSIONS : MAJOR_PROGRESSIONS);
  const root = random.int(57, 64);
  const beat = Math.round((60 / random.int(84, 136)) * sampleRate);
  const eighth = Math.round(beat / 2);
  const notes: Note[] = [];
  let degree = random.int(0, scale.length - 1);
  for (let at = 0; at < totalSamples; ) {
    const length = eighth * (random.next() < 0.7 ? 1 : 2);
    if (random.next() > 0.12) {
      degree = Math.max(0, Math.min(scale.length * 2 - 1, degree + random.int(-2, 2)));
      const octave = Math.floor(degree / scale.length);
      const pitch = root + 12 * octave + (scale[degree % scale.length] as number);
      notes.push({ start: at, length, frequency: midiToHz(pitch), level: random.range(0.22, 0.32), decay: 0.35, harmonics: [1, 0.35, 0.12] });
    }
    at += length;
  }
  for (let at = 0, n = 0; at < totalSamples; at += beat, n += 1) {
    const chord = progression[Math.floor(n / 4) % progression.length] as number;
    const fifth = n % 4 === 2 ? 7 : 0;
    notes.push({ start: at, length: beat, frequency: midiToHz(root - 24 + chord + fifth), level: 0.28, decay: 0.6, harmonics: [1, 0.5, 0.2, 0.1] });
  }
  return notes;
}

/**
 * Work between two turns of the event loop, in sample × harmonic steps (about 10 ns each here): the
 * melody of a 25 s video is 8 million of them, of a 600 s song 200 million, which in one piece held
 * the loop that the gateway's requests share for 0.1 to 2 s. A note is at most a beat (about 140,000
 * steps), so no piece runs much past the budget.
 */
const STEPS_PER_TURN = 500_000;
/** Samples through the limiter per turn (a tanh each). */
const SAMPLES_PER_TURN = 262_144;

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A mono melody of exactly `round(durationS × sampleRate)` 16-bit samples, in pieces with turns of the loop between them. */
export async function synthesizeMelody(options: MelodyOptions): Promise<Int16Array> {
  const { sampleRate } = options;
  const total = Math.round(options.durationS * sampleRate);
  const random = seededRandom(seedFrom('melody', options.seed, options.prompt ?? ''));
  const mix = new Float64Array(total);
  const attack = Math.round(0.008 * sampleRate);
  const release = Math.round(0.02 * sampleRate);
  let steps = 0;
  for (const note of compose(random, total, sampleRate)) {
    if (steps >= STEPS_PER_TURN) {
      await turn();
      steps = 0;
    }
    const end = Math.min(total, note.start + note.length);
    steps += Math.max(0, end - note.start) * note.harmonics.length;
    const step = note.frequency / sampleRate;
    const fall = Math.exp(-1 / (note.decay * sampleRate));
    let envelope = note.level;
    for (let i = note.start; i < end; i += 1) {
      const k = i - note.start;
      const phase = k * step;
      let value = 0;
      for (let h = 0; h < note.harmonics.length; h += 1) value += (note.harmonics[h] as number) * sineAt(phase * (h + 1));
      let gain = envelope;
      if (k < attack) gain *= k / attack;
      const left = end - i;
      if (left < release) gain *= left / release;
      mix[i] = (mix[i] as number) + value * gain;
      envelope *= fall;
    }
  }
  const fadeIn = Math.round(0.01 * sampleRate);
  const fadeOut = Math.min(Math.round(0.15 * sampleRate), Math.floor(total / 2));
  const out = new Int16Array(total);
  for (let i = 0; i < total; i += 1) {
    if (i > 0 && i % SAMPLES_PER_TURN === 0) await turn();
    let v = mix[i] as number;
    if (i < fadeIn) v *= i / fadeIn;
    if (total - i < fadeOut) v *= (total - i) / fadeOut;
    // A soft limiter keeps stacked notes from clipping.
    v = Math.tanh(v);
    out[i] = Math.round(v * 30_000);
  }
  return out;
}

export interface WavInfo {
  title?: string | undefined;
  genre?: string | undefined;
}

function infoChunk(info: WavInfo): Buffer {
  const fields: Array<[string, string]> = [['ISFT', 'Switchboard local renderer']];
  if (info.title) fields.unshift(['INAM', info.title]);
  if (info.genre) fields.push(['IGNR', info.genre]);
  const parts = fields.map(([id, text]) => {
    const value = Buffer.from(`${text}\u0000`, 'utf8');
    const header = Buffer.alloc(8);
    header.write(id, 0, 'ascii');
    header.writeUInt32LE(value.length, 4);
    return Buffer.concat([header, value, Buffer.alloc(value.length % 2)]);
  });
  const body = Buffer.concat([Buffer.from('INFO', 'ascii'), ...parts]);
  const header = Buffer.alloc(8);
  header.write('LIST', 0, 'ascii');
  header.writeUInt32LE(body.length, 4);
  return Buffer.concat([header, body]);
}

/** A canonical 16-bit mono PCM WAV file, with a RIFF INFO list when a title or genre is given. */
export function encodeWav(samples: Int16Array, sampleRate: number, info: WavInfo = {}): Buffer {
  const fmt = Buffer.alloc(24);
  fmt.write('fmt ', 0, 'ascii');
  fmt.writeUInt32LE(16, 4);
  fmt.writeUInt16LE(1, 8); // PCM
  fmt.writeUInt16LE(1, 10); // mono
  fmt.writeUInt32LE(sampleRate, 12);
  fmt.writeUInt32LE(sampleRate * 2, 16);
  fmt.writeUInt16LE(2, 20);
  fmt.writeUInt16LE(16, 22);
  const list = info.title || info.genre ? infoChunk(info) : Buffer.alloc(0);
  const dataHeader = Buffer.alloc(8);
  dataHeader.write('data', 0, 'ascii');
  dataHeader.writeUInt32LE(samples.length * 2, 4);
  // The samples' own bytes where the machine is little-endian (every platform Node runs on): one copy
  // instead of a call per sample (26 million for a 600 s song).
  const pcm = Buffer.alloc(samples.length * 2);
  if (endianness() === 'LE') pcm.set(new Uint8Array(samples.buffer, samples.byteOffset, samples.byteLength));
  else for (let i = 0; i < samples.length; i += 1) pcm.writeInt16LE(samples[i] as number, i * 2);
  const riff = Buffer.alloc(12);
  riff.write('RIFF', 0, 'ascii');
  riff.writeUInt32LE(4 + fmt.length + list.length + dataHeader.length + pcm.length, 4);
  riff.write('WAVE', 8, 'ascii');
  return Buffer.concat([riff, fmt, list, dataHeader, pcm]);
}

/** WAV in, MP3 out (128 kb/s mono, ID3v2.3 title and genre). ffmpeg needs a seekable output for the Xing header, hence the file. */
async function encodeMp3(wav: Buffer, meta: { title?: string | undefined; genre?: string | undefined; timeoutMs: number }): Promise<Buffer> {
  const out = join(tmpdir(), `switchboard-audio-${randomBytes(8).toString('hex')}.mp3`);
  const tags: string[] = [];
  if (meta.title) tags.push('-metadata', `title=${meta.title}`);
  if (meta.genre) tags.push('-metadata', `genre=${meta.genre}`);
  try {
    await runFfmpeg(
      ['-loglevel', 'error', '-f', 'wav', '-i', 'pipe:0', '-map_metadata', '-1', ...tags, '-c:a', 'libmp3lame', '-b:a', '128k', '-compression_level', '7',
        '-id3v2_version', '3', '-fflags', '+bitexact', '-flags:a', '+bitexact', '-f', 'mp3', '-y', out],
      { timeoutMs: meta.timeoutMs, stdin: wav },
    );
    return await readFile(out);
  } catch (error) {
    if (error instanceof FfmpegError && /Unknown encoder 'libmp3lame'|Encoder not found/u.test(error.stderr)) {
      // Every ffmpeg we ship or document has LAME; a custom build on PATH may not.
      throw new FfmpegError(`the ffmpeg at ${ffmpegPath()} cannot encode MP3 (no libmp3lame); use a build with LAME or render WAV`, {
        stderr: error.stderr,
        exitCode: error.exitCode,
        timedOut: false,
        cause: error,
      });
    }
    throw error;
  } finally {
    await rm(out, { force: true });
  }
}

/** Writes a WAV of the melody for ffmpeg to mux into a video; the caller removes the file. */
export async function writeMelodyWav(path: string, options: MelodyOptions): Promise<void> {
  await writeFile(path, encodeWav(await synthesizeMelody(options), options.sampleRate));
}
