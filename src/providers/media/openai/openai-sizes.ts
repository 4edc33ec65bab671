/**
 * OpenAI image and video sizes from our `size` (an aspect ratio) and `resolution` (a tier).
 *
 * Fixed-size image models (gpt-image-1, -1-mini, -1.5, chatgpt-image-latest) offer 1024x1024,
 * 1536x1024 and 1024x1536: the closest orientation is used, at quality medium (the catalog's priced
 * tier; their 2k and 4k are refused before dispatch, openai-refusal.ts). Newer models (gpt-image-2 and later) take any size whose sides
 * are multiples of 16, at most 3840, with an aspect of at most 3:1 and 655,360 to 8,294,400 pixels:
 * the long side is the tier (1024, 2048, 3840), scaled into those bounds; quality is
 * `options.imageQuality` (default medium, the catalog's priced tier).
 */
const FIXED_SIZE_MODELS = /^(gpt-image-1(\.5)?(-mini)?|chatgpt-image-latest|dall-e-[23])(-\d{4}-\d{2}-\d{2})?$/u;

const LONG_SIDE: Readonly<Record<string, number>> = { '1k': 1024, '2k': 2048, '4k': 3840 };
const MIN_PIXELS = 655_360;
const MAX_PIXELS = 8_294_400;
const MAX_SIDE = 3840;

export function isFixedSizeImageModel(model: string): boolean {
  return FIXED_SIZE_MODELS.test(model);
}

function aspect(size: unknown): [number, number] | undefined {
  const m = /^(\d+):(\d+)$/u.exec(String(size ?? ''));
  return m ? [Number(m[1]), Number(m[2])] : undefined;
}

function to16(n: number): number {
  return Math.max(16, Math.round(n / 16) * 16);
}

export function openAiImageSize(model: string, size: unknown, resolution: unknown): string {
  const ratio = aspect(size);
  if (!ratio) return 'auto';
  const [w, h] = ratio;
  if (isFixedSizeImageModel(model)) return w > h ? '1536x1024' : w < h ? '1024x1536' : '1024x1024';
  const long = LONG_SIDE[String(resolution ?? '1k').toLowerCase()] ?? 1024;
  let width = w >= h ? long : (long * w) / h;
  let height = w >= h ? (long * h) / w : long;
  const pixels = width * height;
  const scale = pixels < MIN_PIXELS ? Math.sqrt(MIN_PIXELS / pixels) : pixels > MAX_PIXELS ? Math.sqrt(MAX_PIXELS / pixels) : 1;
  width = Math.min(MAX_SIDE, to16(width * scale));
  height = Math.min(MAX_SIDE, to16(height * scale));
  // Rounding may cross a bound by a few pixels: step the larger side by 16 until inside.
  while (width * height > MAX_PIXELS) {
    if (width >= height) width -= 16;
    else height -= 16;
  }
  while (width * height < MIN_PIXELS) {
    if (width >= height) height += 16;
    else width += 16;
  }
  return `${width}x${height}`;
}

/** Fixed-size models: medium, the tier the catalog prices (2k/4k are refused, openai-refusal.ts); newer ones: the option, else medium. */
export function openAiImageQuality(model: string, configured: string | undefined): string {
  if (isFixedSizeImageModel(model)) return 'medium';
  return configured ?? 'medium';
}

/** Sora sizes: 720p in the requested orientation. */
export function openAiVideoSize(aspectRatio: unknown): string {
  return aspectRatio === '9:16' ? '720x1280' : '1280x720';
}

/** openai-node 7.57.0 `VideoSeconds`: '4' | '8' | '12'. */
export const OPENAI_VIDEO_SECONDS: ReadonlySet<number> = new Set([4, 8, 12]);
