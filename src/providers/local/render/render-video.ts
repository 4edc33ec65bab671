import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runFfmpeg } from './ffmpeg-path.ts';
import { writeMelodyWav } from './render-audio.ts';
import { renderImageRaw } from './render-image.ts';
import { hex, hsl, seededRandom, seedFrom } from './seeded-random.ts';

/**
 * Offline videos for the `local` provider: the picture renderImage would make for the prompt (with
 * its caption) as the background, a seeded square gliding over it and a progress bar along the top
 * edge, H.264 (yuv420p, x264 `ultrafast`) with an AAC melody when asked.
 *
 * The background is computed once and repeated by ffmpeg's `loop` filter, so the per-frame cost is
 * the two small overlays and the encoder. The result is returned as a Buffer (the files stay small:
 * about 20–120 kB per second). Same inputs and the same ffmpeg build give the same bytes: x264 runs
 * with a fixed thread count and the muxer in bitexact mode (no creation time, no version string).
 */

export type VideoFormat = 'mp4' | 'mov';

export interface RenderVideoOptions {
  prompt: string;
  seed: number;
  /** Even number of pixels (yuv420p subsamples chroma by two). */
  width: number;
  height: number;
  durationS: number;
  /** Whole frames per second, 1 to 60. */
  fps: number;
  withAudio: boolean;
  format: VideoFormat;
  /** Default: 60 s plus a budget proportional to pixels × frames. */
  timeoutMs?: number;
}

export const MAX_VIDEO_SIDE = 7680;
/** 3840×2160 with room for 21:9 at 4K. */
export const MAX_VIDEO_PIXELS = 5120 * 2160;
export const MAX_VIDEO_SECONDS = 60;

export function assertVideoOptions(options: RenderVideoOptions): void {
  for (const [name, value] of [['width', options.width], ['height', options.height]] as const) {
    if (!Number.isInteger(value) || value < 16 || value > MAX_VIDEO_SIDE || value % 2 !== 0) {
      throw new RangeError(`${name} must be an even integer from 16 to ${MAX_VIDEO_SIDE}, got ${value}`);
    }
  }
  if (options.width * options.height > MAX_VIDEO_PIXELS) {
    throw new RangeError(`${options.width}×${options.height} is more than ${MAX_VIDEO_PIXELS} pixels`);
  }
  if (!Number.isFinite(options.durationS) || options.durationS <= 0 || options.durationS > MAX_VIDEO_SECONDS) {
    throw new RangeError(`durationS must be more than 0 and at most ${MAX_VIDEO_SECONDS}, got ${options.durationS}`);
  }
  if (!Number.isInteger(options.fps) || options.fps < 1 || options.fps > 60) {
    throw new RangeError(`fps must be an integer from 1 to 60, got ${options.fps}`);
  }
  if (options.format !== 'mp4' && options.format !== 'mov') throw new RangeError(`unsupported video format ${String(options.format)}`);
}

/** Even pixel dimensions for an aspect ratio (`16:9`) and a resolution (`720p`, `1080p`, `4k`): the short side is the resolution. */
export function videoDimensions(aspectRatio: string, resolution: string): { width: number; height: number } {
  const ratio = /^(\d+(?:\.\d+)?):(\d+(?:\.\d+)?)$/.exec(aspectRatio);
  const lines = /^(\d+)p$/i.exec(resolution)?.[1] ?? (/^4k$/i.test(resolution) ? '2160' : /^2k$/i.test(resolution) ? '1440' : undefined);
  if (!ratio || lines === undefined) throw new RangeError(`cannot size a video of ${aspectRatio} at ${resolution}`);
  const w = Number(ratio[1]);
  const h = Number(ratio[2]);
  const short = Number(lines);
  const even = (n: number): number => Math.max(16, 2 * Math.round(n / 2));
  return w >= h ? { width: even((short * w) / h), height: even(short) } : { width: even(short), height: even((short * h) / w) };
}

export async function renderVideo(options: RenderVideoOptions): Promise<Buffer> {
  assertVideoOptions(options);
  const { width, height, fps, durationS, prompt, seed } = options;
  const random = seededRandom(seedFrom('video', prompt, seed));
  const dir = await mkdtemp(join(tmpdir(), 'switchboard-video-'));
  try {
    const frame = await renderImageRaw({ prompt, seed, width, height });
    const background = join(dir, 'background.rgb');
    await writeFile(background, frame.data);
    const box = 2 * Math.max(4, Math.round(Math.min(width, height) / 14));
    const bar = 2 * Math.max(2, Math.round(height / 180));
    const boxColour = hex(hsl(random.range(0, 360), 0.85, 0.6)).replace('#', '0x');
    const periodX = random.range(2.5, 5).toFixed(3);
    const periodY = random.range(1.5, 3.5).toFixed(3);
    const phase = random.range(0, 6.28).toFixed(3);
    // The square stays in the upper part, clear of the caption band; the bar fills the top edge by the end.
    const path = `x='(W-w)*(0.5+0.45*sin(2*PI*t/${periodX}+${phase}))':y='(H*0.55-h)*(0.5+0.45*sin(2*PI*t/${periodY}))'`;
    const inputs = [
      '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-s', `${width}x${height}`, '-framerate', String(fps), '-i', background,
      '-f', 'lavfi', '-i', `color=c=${boxColour}:s=${box}x${box}:r=${fps}`,
      '-f', 'lavfi', '-i', `color=c=white:s=${width}x${bar}:r=${fps}`,
    ];
    const filter =
      `[0:v]format=yuv420p,loop=loop=-1:size=1,setpts=N/(${fps}*TB)[bg];` +
      `[bg][1:v]overlay=${path}:eval=frame[moving];` +
      `[moving][2:v]overlay=x='-W+W*t/${durationS}':y=0:eval=frame,format=yuv420p[v]`;
    const audio: string[] = [];
    if (options.withAudio) {
      const wav = join(dir, 'audio.wav');
      await writeMelodyWav(wav, { seed, durationS, sampleRate: 48_000, prompt });
      inputs.push('-i', wav);
      audio.push('-map', '3:a', '-c:a', 'aac', '-b:a', '96k', '-flags:a', '+bitexact');
    }
    const output = join(dir, `video.${options.format}`);
    const budget = 60_000 + Math.ceil((width * height * fps * durationS) / 50_000);
    await runFfmpeg(
      [
        '-loglevel', 'error', ...inputs,
        '-filter_complex', filter, '-map', '[v]', ...audio,
        '-t', String(durationS), '-r', String(fps),
        '-c:v', 'libx264', '-preset', 'ultrafast', '-crf', '28', '-threads', '2', '-pix_fmt', 'yuv420p', '-flags:v', '+bitexact',
        '-map_metadata', '-1', '-movflags', '+faststart', '-fflags', '+bitexact', '-f', options.format, '-y', output,
      ],
      { timeoutMs: options.timeoutMs ?? budget },
    );
    return await readFile(output);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
