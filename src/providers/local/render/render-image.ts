import sharp from 'sharp';
import { CELL_HEIGHT, CELL_WIDTH, drawText, wrapText } from './bitmap-font.ts';
import { type Canvas, circlePoints, drawCaptionBand, drawConvex, type Point, triangleIncircle } from './raster.ts';
import { hsl, type Rgb, type SeededRandom, seededRandom, seedFrom } from './seeded-random.ts';

/**
 * Offline pictures for the `local` provider: a seeded colour field with soft blobs, a few crisp
 * shapes, and the prompt as a caption in the built-in bitmap font. Same inputs, same bytes.
 *
 * Speed: the colour field is computed at a small size and enlarged by libvips; shapes and caption
 * are drawn straight into the raw pixels; PNG is written with cheap zlib settings and no adaptive
 * filtering. Timings are in docs/local-media.md.
 */

export type ImageFormat = 'png' | 'jpeg';

export interface RenderImageOptions {
  prompt: string;
  seed: number;
  width: number;
  height: number;
  format: ImageFormat;
}

/** Packed RGB, `width * height * 3` bytes, rows top to bottom. */
export type RawFrame = Canvas;

/** Largest side accepted, in pixels. */
export const MAX_IMAGE_SIDE = 8192;
/** Largest area accepted, in pixels (4096×4096 plus room for wide aspect ratios at 4K). */
export const MAX_IMAGE_PIXELS = 4096 * 4096 * 2;

export function assertImageSize(width: number, height: number): void {
  for (const [name, value] of [['width', width], ['height', height]] as const) {
    if (!Number.isInteger(value) || value < 1 || value > MAX_IMAGE_SIDE) {
      throw new RangeError(`${name} must be an integer from 1 to ${MAX_IMAGE_SIDE}, got ${value}`);
    }
  }
  if (width * height > MAX_IMAGE_PIXELS) throw new RangeError(`${width}×${height} is more than ${MAX_IMAGE_PIXELS} pixels`);
}

/** Renders the picture and encodes it as PNG or JPEG. */
export async function renderImage(options: RenderImageOptions): Promise<Buffer> {
  if (options.format !== 'png' && options.format !== 'jpeg') throw new RangeError(`unsupported image format ${String(options.format)}`);
  const frame = await renderImageRaw(options);
  const pipeline = sharp(frame.data, { raw: { width: frame.width, height: frame.height, channels: 3 } });
  if (options.format === 'png') {
    return pipeline.png({ compressionLevel: 3, adaptiveFiltering: false, palette: false }).toBuffer();
  }
  return pipeline.jpeg({ quality: 85, chromaSubsampling: '4:2:0', mozjpeg: false, progressive: false }).toBuffer();
}

/** The picture as raw RGB, before encoding (also the background of a local video). */
export async function renderImageRaw(options: Omit<RenderImageOptions, 'format'>): Promise<RawFrame> {
  const { width, height, prompt, seed } = options;
  assertImageSize(width, height);
  const random = seededRandom(seedFrom('image', prompt, seed));
  const palette = makePalette(random);
  const canvas = await enlarge(colourField(random, palette, width, height), width, height);
  drawShapes(canvas, random, palette);
  drawCaption(canvas, prompt);
  return canvas;
}

/**
 * Enlarges the small colour field to the full size. libvips' cubic upscaling costs about 40 ms per
 * megapixel, so large pictures go through a 1024-pixel intermediate and a nearest-neighbour step:
 * the field is smooth, blocks of a few pixels do not show.
 */
async function enlarge(field: RawFrame, width: number, height: number): Promise<RawFrame> {
  const raw = { width: field.width, height: field.height, channels: 3 } as const;
  const step = Math.max(1, Math.ceil(Math.max(width, height) / 1024));
  if (step === 1) {
    const data = await sharp(field.data, { raw }).resize(width, height, { fit: 'fill', kernel: 'cubic' }).raw().toBuffer();
    return { data, width, height };
  }
  const midWidth = Math.max(1, Math.ceil(width / step));
  const midHeight = Math.max(1, Math.ceil(height / step));
  const mid = await sharp(field.data, { raw }).resize(midWidth, midHeight, { fit: 'fill', kernel: 'cubic' }).raw().toBuffer();
  const data = await sharp(mid, { raw: { width: midWidth, height: midHeight, channels: 3 } })
    .resize(width, height, { fit: 'fill', kernel: 'nearest' })
    .raw()
    .toBuffer();
  return { data, width, height };
}

function makePalette(random: SeededRandom): Rgb[] {
  const hue = random.range(0, 360);
  const spread = random.range(40, 150);
  return [
    hsl(hue, random.range(0.55, 0.85), random.range(0.35, 0.55)),
    hsl((hue + spread) % 360, random.range(0.55, 0.9), random.range(0.4, 0.6)),
    hsl((hue + 2 * spread) % 360, random.range(0.5, 0.9), random.range(0.45, 0.7)),
    hsl((hue + 180) % 360, random.range(0.3, 0.7), random.range(0.2, 0.35)),
  ];
}

/** A diagonal gradient with a few Gaussian blobs, at most 96 pixels on its long side. */
function colourField(random: SeededRandom, palette: Rgb[], width: number, height: number): RawFrame {
  const long = 96;
  const fw = width >= height ? Math.min(width, long) : Math.max(2, Math.min(width, Math.round((long * width) / height)));
  const fh = height > width ? Math.min(height, long) : Math.max(2, Math.min(height, Math.round((long * height) / width)));
  const angle = random.range(0, Math.PI * 2);
  const [dx, dy] = [Math.cos(angle), Math.sin(angle)];
  const from = palette[3] as Rgb;
  const to = palette[0] as Rgb;
  const blobs = Array.from({ length: random.int(3, 6) }, () => ({
    x: random.next(),
    y: random.next(),
    radius: random.range(0.12, 0.35),
    colour: palette[random.int(0, 2)] as Rgb,
    strength: random.range(0.5, 0.9),
  }));
  const data = Buffer.alloc(fw * fh * 3);
  for (let y = 0; y < fh; y += 1) {
    for (let x = 0; x < fw; x += 1) {
      const u = (x + 0.5) / fw;
      const v = (y + 0.5) / fh;
      const g = Math.min(1, Math.max(0, 0.5 + ((u - 0.5) * dx + (v - 0.5) * dy) * 0.9));
      let r = from[0] + (to[0] - from[0]) * g;
      let gr = from[1] + (to[1] - from[1]) * g;
      let b = from[2] + (to[2] - from[2]) * g;
      for (const blob of blobs) {
        const d2 = ((u - blob.x) ** 2 + (v - blob.y) ** 2) / (blob.radius * blob.radius);
        const w = blob.strength * Math.exp(-d2);
        r += (blob.colour[0] - r) * w;
        gr += (blob.colour[1] - gr) * w;
        b += (blob.colour[2] - b) * w;
      }
      const at = (y * fw + x) * 3;
      data[at] = Math.round(r);
      data[at + 1] = Math.round(gr);
      data[at + 2] = Math.round(b);
    }
  }
  return { data, width: fw, height: fh };
}

/** A few translucent circles, squares and triangles with a light outline. */
function drawShapes(canvas: Canvas, random: SeededRandom, palette: Rgb[]): void {
  const { width, height } = canvas;
  const unit = Math.min(width, height);
  const strokeWidth = unit >= 48 ? Math.max(1, unit / 160) : 0;
  const count = random.int(3, 6);
  for (let i = 0; i < count; i += 1) {
    const style = {
      fill: palette[random.int(0, 2)] as Rgb,
      fillAlpha: random.range(0.3, 0.6),
      stroke: WHITE,
      strokeAlpha: 0.55,
      strokeWidth,
    };
    const cx = random.range(0.1, 0.9) * width;
    const cy = random.range(0.1, 0.75) * height;
    const size = Math.max(1, random.range(0.08, 0.22) * unit);
    const kind = random.int(0, 2);
    if (kind === 0) {
      drawConvex(canvas, circlePoints(cx, cy, size), [cx, cy], size, style);
    } else if (kind === 1) {
      const a = random.range(0, Math.PI / 2);
      const corners = [0, 1, 2, 3].map((k): Point => {
        const t = a + Math.PI / 4 + (k * Math.PI) / 2;
        return [cx + size * Math.SQRT2 * Math.cos(t), cy + size * Math.SQRT2 * Math.sin(t)];
      });
      drawConvex(canvas, corners, [cx, cy], size, style);
    } else {
      const triangle = [0, 1, 2].map((k): Point => {
        const t = random.range(0, 0.6) + (k * 2 * Math.PI) / 3;
        return [cx + size * 1.2 * Math.cos(t), cy + size * 1.2 * Math.sin(t)];
      }) as [Point, Point, Point];
      const incircle = triangleIncircle(triangle);
      drawConvex(canvas, triangle, incircle.centre, incircle.radius, style);
    }
  }
}

const WHITE: Rgb = [255, 255, 255];
const CAPTION_LINES = 4;

/**
 * The prompt in white on a translucent dark band along the bottom. The font scale grows with the
 * picture so the caption stays readable; a picture too small for four columns gets no caption.
 */
function drawCaption(canvas: Canvas, prompt: string): void {
  const { width, height } = canvas;
  const scale = Math.max(1, Math.floor(Math.min(width, height * 1.5) / 170));
  const padding = 2 * scale;
  const columns = Math.floor((width - 2 * padding) / (CELL_WIDTH * scale));
  if (columns < 4 || height < CELL_HEIGHT * scale + 2 * padding) return;
  const maxLines = Math.max(1, Math.min(CAPTION_LINES, Math.floor((height * 0.4) / (CELL_HEIGHT * scale))));
  const lines = wrapText(prompt.trim() === '' ? '(no prompt)' : prompt, columns, maxLines);
  const mask = drawText(lines, columns, scale);
  const bandHeight = mask.height + 2 * padding;
  drawCaptionBand(canvas, { top: height - bandHeight, height: bandHeight, shade: 0.6 }, mask, [padding, height - bandHeight + padding], WHITE);
}
