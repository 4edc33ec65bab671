/**
 * Pixel sizes of outputs (docs/catalog.md "Output sizes").
 * Video: the resolution tier is the short side (480p → 480, 4k → 2160); the long side follows the
 * aspect ratio, rounded to an even number. Image: the tier is the long side (1K → 1024); the short
 * side follows the aspect ratio, rounded to a multiple of 8. `adaptive`/`auto` (which follow input
 * media we do not open) are rendered as 16:9 for video and 1:1 for images.
 */
import type { ImageOutputSpec, VideoOutputSpec } from '../catalog.types.ts';

const VIDEO_SHORT_SIDE: Record<string, number> = {
  '360p': 360,
  '480p': 480,
  '540p': 540,
  '720p': 720,
  '1080p': 1080,
  '4k': 2160,
};

const IMAGE_LONG_SIDE: Record<string, number> = {
  '512px': 512,
  '1K': 1024,
  '1k': 1024,
  '2K': 2048,
  '2k': 2048,
  '3K': 3072,
  '4K': 4096,
  '4k': 4096,
};

function ratio(aspect: string | undefined, fallback: string): [number, number] {
  const m = /^(\d+):(\d+)$/.exec(aspect ?? '') ?? /^(\d+):(\d+)$/.exec(fallback);
  return m ? [Number(m[1]), Number(m[2])] : [16, 9];
}

function roundTo(value: number, step: number): number {
  return Math.max(step, Math.round(value / step) * step);
}

export function videoSize(resolution: string, aspect: string | undefined): { width: number; height: number } {
  const short = VIDEO_SHORT_SIDE[resolution] ?? 720;
  const [w, h] = ratio(aspect, '16:9');
  if (w === h) return { width: short, height: short };
  const long = roundTo((short * Math.max(w, h)) / Math.min(w, h), 2);
  return w > h ? { width: long, height: short } : { width: short, height: long };
}

export function imageSize(tier: string, aspect: string | undefined): { width: number; height: number } {
  const long = IMAGE_LONG_SIDE[tier] ?? 1024;
  const [w, h] = ratio(aspect, '1:1');
  if (w === h) return { width: long, height: long };
  const short = roundTo((long * Math.min(w, h)) / Math.max(w, h), 8);
  return w > h ? { width: long, height: short } : { width: short, height: long };
}

export function videoOutput(o: {
  resolution: string;
  aspect: string | undefined;
  durationS: number;
  withAudio: boolean;
  count?: number;
  format?: 'mp4' | 'mov';
}): VideoOutputSpec {
  return {
    kind: 'video',
    count: o.count ?? 1,
    ...videoSize(o.resolution, o.aspect),
    durationS: o.durationS,
    fps: 24,
    withAudio: o.withAudio,
    format: o.format ?? 'mp4',
  };
}

export function imageOutput(o: { tier: string; aspect: string | undefined; count?: number; format?: 'png' | 'jpeg' }): ImageOutputSpec {
  return { kind: 'image', count: o.count ?? 1, ...imageSize(o.tier, o.aspect), format: o.format ?? 'png' };
}
