import { id3v2Length, isMpegAudioFrame } from '../../domain/files/media-format.ts';

/**
 * Structure checks that a metadata parser does not make: a file cut short must be refused even
 * when its header (an MP4 `moov` at the front, a Xing frame count, a WAV header) still describes
 * the whole thing. Each returns a reason when the file is damaged, undefined when it is whole.
 */

interface Box {
  type: string;
  /** Offset of the payload (after the header). */
  start: number;
  end: number;
}

/** The boxes between `from` and `to`, or a reason if one runs past the end. */
function readBoxes(bytes: Buffer, from: number, to: number): Box[] | string {
  const boxes: Box[] = [];
  let at = from;
  while (at < to) {
    if (to - at < 8) return `a box header is cut off at byte ${at}`;
    let size = bytes.readUInt32BE(at);
    const type = bytes.toString('latin1', at + 4, at + 8);
    let header = 8;
    if (size === 1) {
      if (to - at < 16) return `a box header is cut off at byte ${at}`;
      const big = bytes.readBigUInt64BE(at + 8);
      if (big > BigInt(Number.MAX_SAFE_INTEGER)) return `the ${type} box is impossibly large`;
      size = Number(big);
      header = 16;
    } else if (size === 0) {
      size = to - at;
    }
    if (size < header) return `the ${type} box at byte ${at} has an invalid size`;
    if (at + size > to) return `the ${type} box at byte ${at} needs ${size} bytes but only ${to - at} remain: the file is truncated`;
    boxes.push({ type, start: at + header, end: at + size });
    at += size;
  }
  return boxes;
}

export interface IsoTrack {
  /** `vide`, `soun`, `text`, … from the handler box. */
  handler: string;
  /** Display size from the track header, rotation applied; 0 for sound. */
  width: number;
  height: number;
}

export interface IsoStructure {
  tracks: IsoTrack[];
}

function child(bytes: Buffer, parent: Box, type: string): Box | undefined {
  const boxes = readBoxes(bytes, parent.start, parent.end);
  return typeof boxes === 'string' ? undefined : boxes.find((b) => b.type === type);
}

function readTrack(bytes: Buffer, trak: Box): IsoTrack {
  let handler = '';
  const mdia = child(bytes, trak, 'mdia');
  const hdlr = mdia ? child(bytes, mdia, 'hdlr') : undefined;
  if (hdlr && hdlr.end - hdlr.start >= 12) handler = bytes.toString('latin1', hdlr.start + 8, hdlr.start + 12);
  let width = 0;
  let height = 0;
  const tkhd = child(bytes, trak, 'tkhd');
  if (tkhd && tkhd.end - tkhd.start >= 84) {
    // The header ends with the 3×3 matrix and then width and height in 16.16 fixed point.
    width = Math.round(bytes.readUInt32BE(tkhd.end - 8) / 65536);
    height = Math.round(bytes.readUInt32BE(tkhd.end - 4) / 65536);
    const matrix = tkhd.end - 8 - 36;
    const a = bytes.readInt32BE(matrix);
    const d = bytes.readInt32BE(matrix + 16);
    if (a === 0 && d === 0) [width, height] = [height, width];
  }
  return { handler, width, height };
}

/** Walks an MP4 / MOV: every top-level box must fit in the file, and `moov` must be present. */
export function checkIsoBmff(bytes: Buffer): IsoStructure | string {
  const top = readBoxes(bytes, 0, bytes.length);
  if (typeof top === 'string') return top;
  const moov = top.find((b) => b.type === 'moov');
  if (!moov) return 'the file has no movie header (moov box)';
  const inner = readBoxes(bytes, moov.start, moov.end);
  if (typeof inner === 'string') return inner;
  return { tracks: inner.filter((b) => b.type === 'trak').map((trak) => readTrack(bytes, trak)) };
}

/** A RIFF/WAVE file: chunks must fit, with `fmt ` and a `data` chunk that is all there. */
export function checkWav(bytes: Buffer): string | undefined {
  if (bytes.length < 12) return 'the WAV header is cut off';
  let at = 12;
  let sawFormat = false;
  while (at + 8 <= bytes.length) {
    const id = bytes.toString('latin1', at, at + 4);
    const size = bytes.readUInt32LE(at + 4);
    if (id === 'fmt ') sawFormat = true;
    if (id === 'data') {
      if (!sawFormat) return 'the WAV data comes before its format chunk';
      // Writers that stream to a pipe leave the size 0 or 0xFFFFFFFF: then the data runs to the end.
      if (size !== 0 && size !== 0xffffffff && at + 8 + size > bytes.length) {
        return `the WAV data chunk declares ${size} bytes but only ${bytes.length - at - 8} are present: the file is truncated`;
      }
      return undefined;
    }
    at += 8 + size + (size % 2);
  }
  return 'the WAV file has no data chunk';
}

/**
 * An MP3 with a Xing/Info header states its stream length in bytes; a file shorter than that is
 * truncated although its frame count still promises the full duration.
 */
export function checkMp3(bytes: Buffer): string | undefined {
  const first = id3v2Length(bytes);
  if (!isMpegAudioFrame(bytes, first)) return 'no MPEG audio frame where the audio should start';
  const window = bytes.subarray(first, Math.min(bytes.length, first + 200));
  const tagAt = Math.max(window.indexOf('Xing', 0, 'latin1'), window.indexOf('Info', 0, 'latin1'));
  if (tagAt < 0 || tagAt + 16 > window.length) return undefined;
  const flags = window.readUInt32BE(tagAt + 4);
  if ((flags & 0x2) === 0) return undefined;
  const offset = tagAt + 8 + ((flags & 0x1) !== 0 ? 4 : 0);
  if (offset + 4 > window.length) return undefined;
  const declared = window.readUInt32BE(offset);
  const present = bytes.length - first;
  // Allow one maximal frame of slack for writers that count differently.
  if (declared > present + 1441) return `the MP3 stream declares ${declared} bytes but only ${present} are present: the file is truncated`;
  return undefined;
}
