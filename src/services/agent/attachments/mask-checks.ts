/**
 * A mask for an edit (SPEC rule 11): a PNG of the original's size where white marks the region to
 * edit and black the region to keep. Transparent pixels count as black (kept). "Binary enough": at
 * least 95 % of the pixels are near black or near white, and some are white (else nothing would
 * change).
 */
import sharp from 'sharp';

const NEAR = 32;
const MIN_BINARY_SHARE = 0.95;

export interface MaskVerdict {
  ok: boolean;
  error?: string;
  /** Share of the picture marked for editing (0 to 1). */
  editShare?: number;
}

export async function checkMask(mask: Buffer, original: { width: number; height: number }): Promise<MaskVerdict> {
  const image = sharp(mask, { failOn: 'error' });
  const meta = await image.metadata();
  if (meta.format !== 'png') return { ok: false, error: 'a mask must be a PNG' };
  if (meta.width !== original.width || meta.height !== original.height) {
    return { ok: false, error: `the mask is ${meta.width}×${meta.height}, its original ${original.width}×${original.height}: they must be the same size` };
  }
  const { data } = await image.flatten({ background: '#000000' }).greyscale().raw().toBuffer({ resolveWithObject: true });
  let white = 0;
  let black = 0;
  for (const value of data) {
    if (value >= 255 - NEAR) white += 1;
    else if (value <= NEAR) black += 1;
  }
  const share = (white + black) / data.length;
  if (share < MIN_BINARY_SHARE) return { ok: false, error: `the mask must be black and white: ${Math.round((1 - share) * 100)} % of its pixels are grey` };
  if (white === 0) return { ok: false, error: 'the mask has no white region: nothing would be edited' };
  return { ok: true, editShare: white / data.length };
}

export async function imageSize(bytes: Buffer): Promise<{ width: number; height: number } | undefined> {
  const meta = await sharp(bytes).metadata();
  return meta.width !== undefined && meta.height !== undefined ? { width: meta.width, height: meta.height } : undefined;
}
