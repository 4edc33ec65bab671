import { createHash } from 'node:crypto';

/**
 * A small deterministic PRNG (mulberry32) seeded from the prompt and the seed, so that the same
 * request renders the same file on every machine. Not for anything secret.
 */
export interface SeededRandom {
  /** Uniform in [0, 1). */
  next(): number;
  /** Integer in [min, max], both included. */
  int(min: number, max: number): number;
  /** Uniform in [min, max). */
  range(min: number, max: number): number;
  pick<T>(items: readonly T[]): T;
}

/** A 32-bit seed from any number of strings and numbers (SHA-256, first four bytes). */
export function seedFrom(...parts: ReadonlyArray<string | number>): number {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(`${typeof part}:${String(part)}\u0000`);
  return hash.digest().readUInt32BE(0);
}

export function seededRandom(seed: number): SeededRandom {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    range: (min, max) => min + next() * (max - min),
    pick: <T>(items: readonly T[]): T => {
      if (items.length === 0) throw new RangeError('pick from an empty list');
      return items[Math.floor(next() * items.length)] as T;
    },
  };
}

export type Rgb = readonly [number, number, number];

/** A colour from hue (0–360), saturation and lightness (0–1). */
export function hsl(h: number, s: number, l: number): Rgb {
  const a = s * Math.min(l, 1 - l);
  const channel = (n: number): number => {
    const k = (n + h / 30) % 12;
    return Math.round(255 * (l - a * Math.max(-1, Math.min(k - 3, 9 - k, 1))));
  };
  return [channel(0), channel(8), channel(4)];
}

export function hex(color: Rgb): string {
  return `#${color.map((c) => c.toString(16).padStart(2, '0')).join('')}`;
}
