/**
 * The container format of a file, read from its first bytes (never from the URL or the
 * Content-Type a server claims). Names are lower case and match the `formats` lists of the catalog.
 */

export type MediaKind = 'image' | 'video' | 'audio';

export type MediaFormat =
  | 'png' | 'jpeg' | 'gif' | 'webp' | 'avif' | 'heic' | 'tiff'
  | 'mp4' | 'mov' | 'webm' | 'mkv'
  | 'm4a' | 'mp3' | 'wav' | 'aac' | 'ogg' | 'flac';

/** The kinds a format can hold: an MP4 may be a video or only a sound track, a WebM likewise. */
export const FORMAT_KINDS: Record<MediaFormat, readonly MediaKind[]> = {
  png: ['image'], jpeg: ['image'], gif: ['image'], webp: ['image'], avif: ['image'], heic: ['image'], tiff: ['image'],
  mp4: ['video', 'audio'], mov: ['video', 'audio'], webm: ['video', 'audio'], mkv: ['video', 'audio'],
  m4a: ['audio'], mp3: ['audio'], wav: ['audio'], aac: ['audio'], ogg: ['audio'], flac: ['audio'],
};

/** The MIME type a file of each format is served with. */
export const CONTENT_TYPES: Record<MediaFormat, string> = {
  png: 'image/png',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  avif: 'image/avif',
  heic: 'image/heic',
  tiff: 'image/tiff',
  mp4: 'video/mp4',
  mov: 'video/quicktime',
  webm: 'video/webm',
  mkv: 'video/x-matroska',
  m4a: 'audio/mp4',
  mp3: 'audio/mpeg',
  wav: 'audio/wav',
  aac: 'audio/aac',
  ogg: 'audio/ogg',
  flac: 'audio/flac',
};

/** The usual file name extension of a format (`jpeg` files are `.jpg`). */
export function fileExtension(format: MediaFormat): string {
  return format === 'jpeg' ? 'jpg' : format;
}

/** Container names people write for the same thing, mapped to ours (`jpg` → `jpeg`). */
export const FORMAT_ALIASES: Record<string, MediaFormat> = {
  jpg: 'jpeg', jpeg: 'jpeg', tif: 'tiff', heif: 'heic', qt: 'mov', quicktime: 'mov', mpeg: 'mp3', wave: 'wav', oga: 'ogg', opus: 'ogg', matroska: 'mkv',
};

export function normalizeFormatName(name: string): string {
  const lower = name.trim().toLowerCase();
  return FORMAT_ALIASES[lower] ?? lower;
}

function ascii(bytes: Buffer, start: number, length: number): string {
  return bytes.length >= start + length ? bytes.toString('latin1', start, start + length) : '';
}

const QUICKTIME_FIRST_BOXES = new Set(['moov', 'mdat', 'wide', 'free', 'skip', 'pnot']);
const HEIF_BRANDS = new Set(['heic', 'heix', 'heim', 'heis', 'hevc', 'hevx', 'mif1', 'msf1']);

function isoBrandFormat(bytes: Buffer): MediaFormat {
  const major = ascii(bytes, 8, 4);
  if (major === 'qt  ') return 'mov';
  if (major === 'M4A ' || major === 'M4B ' || major === 'M4P ') return 'm4a';
  if (major === 'avif' || major === 'avis') return 'avif';
  if (HEIF_BRANDS.has(major)) return 'heic';
  return 'mp4';
}

/** Size of an ID3v2 tag at the start (0 if none): header plus synch-safe size plus optional footer. */
export function id3v2Length(bytes: Buffer): number {
  if (ascii(bytes, 0, 3) !== 'ID3' || bytes.length < 10) return 0;
  const size = (((bytes[6] as number) & 0x7f) << 21) | (((bytes[7] as number) & 0x7f) << 14) | (((bytes[8] as number) & 0x7f) << 7) | ((bytes[9] as number) & 0x7f);
  const footer = ((bytes[5] as number) & 0x10) !== 0 ? 10 : 0;
  return 10 + size + footer;
}

/** True at an MPEG audio frame header (sync, a valid version, layer, bitrate and sample rate). */
export function isMpegAudioFrame(bytes: Buffer, at: number): boolean {
  if (bytes.length < at + 4) return false;
  const b1 = bytes[at + 1] as number;
  const b2 = bytes[at + 2] as number;
  return bytes[at] === 0xff && (b1 & 0xe0) === 0xe0 && ((b1 >> 3) & 3) !== 1 && ((b1 >> 1) & 3) !== 0 && (b2 >> 4) !== 15 && (b2 >> 4) !== 0 && ((b2 >> 2) & 3) !== 3;
}

function isAdtsFrame(bytes: Buffer, at: number): boolean {
  return bytes.length >= at + 7 && bytes[at] === 0xff && ((bytes[at + 1] as number) & 0xf6) === 0xf0;
}

/** The format the bytes are in, or undefined when they are none we know. */
export function detectFormat(bytes: Buffer): MediaFormat | undefined {
  if (bytes.length < 4) return undefined;
  if (bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'png';
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'jpeg';
  const head4 = ascii(bytes, 0, 4);
  if (ascii(bytes, 0, 6) === 'GIF87a' || ascii(bytes, 0, 6) === 'GIF89a') return 'gif';
  if (head4 === 'RIFF' && ascii(bytes, 8, 4) === 'WEBP') return 'webp';
  if (head4 === 'RIFF' && ascii(bytes, 8, 4) === 'WAVE') return 'wav';
  if (head4 === 'II*\u0000' || head4 === 'MM\u0000*') return 'tiff';
  if (ascii(bytes, 4, 4) === 'ftyp') return isoBrandFormat(bytes);
  if (QUICKTIME_FIRST_BOXES.has(ascii(bytes, 4, 4))) return 'mov';
  if (bytes[0] === 0x1a && bytes[1] === 0x45 && bytes[2] === 0xdf && bytes[3] === 0xa3) {
    // The EBML header names the document type near the start.
    return bytes.subarray(0, 64).includes('webm', 0, 'latin1') ? 'webm' : 'mkv';
  }
  if (head4 === 'OggS') return 'ogg';
  if (head4 === 'fLaC') return 'flac';
  const afterId3 = id3v2Length(bytes);
  if (afterId3 > 0 && afterId3 < bytes.length) {
    if (isMpegAudioFrame(bytes, afterId3)) return 'mp3';
    if (isAdtsFrame(bytes, afterId3)) return 'aac';
    if (ascii(bytes, afterId3, 4) === 'fLaC') return 'flac';
    return undefined;
  }
  if (isAdtsFrame(bytes, 0)) return 'aac';
  if (isMpegAudioFrame(bytes, 0)) return 'mp3';
  return undefined;
}
