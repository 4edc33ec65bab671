import { type IAudioMetadata, parseBuffer } from 'music-metadata';
import sharp from 'sharp';
import { checkIsoBmff, checkMp3, checkWav, type IsoStructure } from './container-checks.ts';
import { detectFormat, FORMAT_KINDS, type MediaFormat, type MediaKind } from '../../domain/files/media-format.ts';

/**
 * What a user's media file is, measured in-process: the container from the magic bytes, then
 * sharp for pictures (header plus a full decode, so a cut-off picture is refused) and
 * music-metadata for the length of sound and video (5–30 ms, no ffmpeg). Structure checks refuse
 * files whose headers promise more than the bytes hold.
 */

export interface MediaProbe {
  format: MediaFormat;
  kind: MediaKind;
  /** Seconds, for video and audio: the longest track. */
  durationS?: number;
  /** Pixels, for images and video (display orientation). */
  width?: number;
  height?: number;
  bytes: number;
  /** For video: whether it carries a sound track. */
  hasAudio?: boolean;
}

export type MediaProbeFailure =
  /** No bytes, or bytes of no format we know. */
  | 'unsupported_format'
  /** A known format, but not of the kind asked for (a PNG where a video was expected). */
  | 'wrong_kind'
  /** A known format the caller does not accept here. */
  | 'format_not_allowed'
  /** Damaged, truncated or without the property we need (a duration). */
  | 'unreadable';

export class MediaProbeError extends Error {
  readonly reason: MediaProbeFailure;
  /** The detected format, when there was one. */
  readonly format: MediaFormat | undefined;

  constructor(reason: MediaProbeFailure, message: string, format?: MediaFormat, options: { cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'MediaProbeError';
    this.reason = reason;
    this.format = format;
  }
}

export function isMediaProbeError(value: unknown): value is MediaProbeError {
  return value instanceof MediaProbeError;
}

/** Pictures larger than this are refused before decoding (a decompression bomb). */
export const MAX_PROBE_PIXELS = 16384 * 16384;

export interface ProbeHint {
  kind: MediaKind;
}

export async function probeMedia(bytes: Buffer, hint: ProbeHint): Promise<MediaProbe> {
  const format = detectFormat(bytes);
  if (format === undefined) {
    throw new MediaProbeError('unsupported_format', bytes.length === 0 ? 'the file is empty' : `the file is not a ${hint.kind} in a format we can read`);
  }
  if (!FORMAT_KINDS[format].includes(hint.kind)) {
    throw new MediaProbeError('wrong_kind', `expected ${article(hint.kind)} ${hint.kind}, but the file is ${format} (${FORMAT_KINDS[format].join(' or ')})`, format);
  }
  if (hint.kind === 'image') return probeImage(bytes, format);
  return probeTimed(bytes, format, hint.kind);
}

function article(kind: MediaKind): string {
  return kind === 'image' || kind === 'audio' ? 'an' : 'a';
}

async function probeImage(bytes: Buffer, format: MediaFormat): Promise<MediaProbe> {
  try {
    const meta = await sharp(bytes, { limitInputPixels: MAX_PROBE_PIXELS }).metadata();
    const oriented = meta.autoOrient ?? { width: meta.width, height: meta.height };
    // Decoding (to a thumbnail: JPEG shrinks while it decodes) is the only proof the data is whole.
    await sharp(bytes, { failOn: 'truncated', limitInputPixels: MAX_PROBE_PIXELS }).resize(16, 16, { fit: 'inside' }).raw().toBuffer();
    return { format, kind: 'image', width: oriented.width, height: oriented.height, bytes: bytes.length };
  } catch (error) {
    const detail = error instanceof Error ? error.message.split('\n')[0] : String(error);
    throw new MediaProbeError('unreadable', `the ${format} picture cannot be decoded: ${detail}`, format, { cause: error });
  }
}

const MIME_TYPES: Partial<Record<MediaFormat, string>> = {
  mp4: 'video/mp4', mov: 'video/quicktime', webm: 'video/webm', mkv: 'video/x-matroska',
  m4a: 'audio/mp4', mp3: 'audio/mpeg', wav: 'audio/wav', aac: 'audio/aac', ogg: 'audio/ogg', flac: 'audio/flac',
};

function structureProblem(bytes: Buffer, format: MediaFormat): { problem?: string; iso?: IsoStructure } {
  if (format === 'mp4' || format === 'mov' || format === 'm4a') {
    const iso = checkIsoBmff(bytes);
    return typeof iso === 'string' ? { problem: iso } : { iso };
  }
  if (format === 'wav') {
    const problem = checkWav(bytes);
    return problem === undefined ? {} : { problem };
  }
  if (format === 'mp3') {
    const problem = checkMp3(bytes);
    return problem === undefined ? {} : { problem };
  }
  return {};
}

async function probeTimed(bytes: Buffer, format: MediaFormat, kind: 'video' | 'audio'): Promise<MediaProbe> {
  const { problem, iso } = structureProblem(bytes, format);
  if (problem !== undefined) throw new MediaProbeError('unreadable', `the ${format} file is damaged: ${problem}`, format);
  let meta: IAudioMetadata;
  try {
    meta = await parseBuffer(bytes, { mimeType: MIME_TYPES[format] ?? 'application/octet-stream', size: bytes.length }, { duration: true, skipCovers: true });
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new MediaProbeError('unreadable', `the ${format} file cannot be read: ${detail}`, format, { cause: error });
  }
  const durations = [meta.format.duration, ...meta.format.trackInfo.map((t) => t.duration)].filter(
    (d): d is number => typeof d === 'number' && Number.isFinite(d) && d > 0,
  );
  if (durations.length === 0) throw new MediaProbeError('unreadable', `the ${format} file has no readable duration`, format);
  const durationS = Math.max(...durations);

  // Track kinds: our own walk for MP4/MOV (music-metadata leaves QuickTime track types blank),
  // music-metadata's track list for the rest.
  const videoTrack = iso?.tracks.find((t) => t.handler === 'vide');
  const mmVideo = meta.format.trackInfo.find((t) => t.video !== undefined)?.video;
  const hasVideo = iso ? videoTrack !== undefined : meta.format.hasVideo === true || mmVideo !== undefined;
  const hasAudio = iso ? iso.tracks.some((t) => t.handler === 'soun') : meta.format.hasAudio !== false;
  if (kind === 'video' && !hasVideo) throw new MediaProbeError('wrong_kind', `expected a video, but the ${format} file has no picture track`, format);
  if (kind === 'audio' && !hasAudio) throw new MediaProbeError('wrong_kind', `expected an audio file, but the ${format} file has no sound track`, format);

  const probe: MediaProbe = { format, kind, durationS, bytes: bytes.length };
  if (kind === 'video') {
    const width = videoTrack?.width || mmVideo?.pixelWidth;
    const height = videoTrack?.height || mmVideo?.pixelHeight;
    if (width) probe.width = width;
    if (height) probe.height = height;
    probe.hasAudio = hasAudio;
  }
  return probe;
}
