/**
 * A mask for an edit (SPEC rule 11): a PNG of the original's size where white marks the region to
 * edit and black the region to keep. Transparent pixels count as black (kept). "Binary enough": at
 * least 95 % of the pixels are near black or near white, and some are white (else nothing would
 * change).
 *
 * The checks are ordered by cost, and none runs on the event loop: the PNG header gives the format
 * and the size (a mask larger than any model edits is refused before a pixel is decoded); libvips
 * decodes it to one grey byte per pixel in libuv's thread pool, a bounded number at once; the CPU pool
 * counts them. A 33 KB PNG can claim 16k×16k pixels: decoded, that was 256 MB and 1.4 s of the loop.
 */
import sharp from 'sharp';
import type { CpuPool } from '../../../ports/cpu-pool.port.ts';

/** The longest side of any picture a model in the catalog makes or edits (4K tiers, docs/catalog.md). */
export const MAX_MASK_SIDE = 4096;
const MIN_BINARY_SHARE = 0.95;

export interface MaskVerdict {
  ok: boolean;
  error?: string;
  /** Share of the picture marked for editing (0 to 1). */
  editShare?: number;
}

export interface MaskCheckDeps {
  cpu: CpuPool;
  /** Bounds the decodes running at once in this process (each holds up to 16 MiB of pixels). */
  decodes: DecodeSlots;
}

export async function checkMask(mask: Buffer, original: { width: number; height: number }, deps: MaskCheckDeps): Promise<MaskVerdict> {
  const meta = await sharp(mask).metadata();
  if (meta.format !== 'png') return { ok: false, error: 'a mask must be a PNG' };
  const { width, height } = meta;
  if (width > MAX_MASK_SIDE || height > MAX_MASK_SIDE) {
    return { ok: false, error: `the mask is ${width}×${height}: a mask is at most ${MAX_MASK_SIDE}×${MAX_MASK_SIDE}, the largest picture a model edits` };
  }
  if (width !== original.width || height !== original.height) {
    return { ok: false, error: `the mask is ${width}×${height}, its original ${original.width}×${original.height}: they must be the same size` };
  }
  const grey = await deps.decodes.run(() =>
    sharp(mask, { failOn: 'error', limitInputPixels: MAX_MASK_SIDE * MAX_MASK_SIDE, sequentialRead: true }).flatten({ background: '#000000' }).greyscale().raw().toBuffer(),
  );
  const { white, black, total } = await deps.cpu.run('countMaskPixels', { grey });
  const share = (white + black) / total;
  if (share < MIN_BINARY_SHARE) return { ok: false, error: `the mask must be black and white: ${Math.round((1 - share) * 100)} % of its pixels are grey` };
  if (white === 0) return { ok: false, error: 'the mask has no white region: nothing would be edited' };
  return { ok: true, editShare: white / total };
}

/** Width and height from the header alone (nothing decoded). */
export async function imageSize(bytes: Buffer): Promise<{ width: number; height: number } | undefined> {
  const meta = await sharp(bytes).metadata();
  return meta.width !== undefined && meta.height !== undefined ? { width: meta.width, height: meta.height } : undefined;
}

/** At most `limit` decodes at once; the rest wait their turn in order. */
export class DecodeSlots {
  readonly #limit: number;
  #running = 0;
  readonly #waiting: Array<() => void> = [];

  constructor(limit: number) {
    this.#limit = limit;
  }

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.#running >= this.#limit) await new Promise<void>((resolve) => this.#waiting.push(resolve));
    else this.#running++;
    try {
      return await work();
    } finally {
      const next = this.#waiting.shift();
      if (next) next();
      else this.#running--;
    }
  }
}
