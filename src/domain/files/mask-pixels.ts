/**
 * A mask's grey levels counted (SPEC rule 11): near white marks the region to edit, near black the
 * region to keep. The pixels come decoded by libvips (at most 4096×4096, one byte each); the count
 * runs in the CPU pool.
 */

/** How far from pure black or white a level still counts as that colour. */
export const MASK_NEAR = 32;

export interface MaskCounts {
  white: number;
  black: number;
  total: number;
}

export function countMaskPixels(grey: Uint8Array): MaskCounts {
  let white = 0;
  let black = 0;
  const high = 255 - MASK_NEAR;
  for (let i = 0; i < grey.length; i++) {
    const value = grey[i] as number;
    if (value >= high) white++;
    else if (value <= MASK_NEAR) black++;
  }
  return { white, black, total: grey.length };
}
