import type { DataOutputSpec } from '../../domain/catalog/catalog.types.ts';
import { makeLyrics, makeTags, makeTitle } from './render/render-music.ts';
import { seededRandom } from './render/seeded-random.ts';

/**
 * Results of data actions (lyrics, personas, descriptions, …) made up deterministically from the
 * prompt and seed, in the shape the matching upstream returns them.
 */
export function localDataOutput(spec: DataOutputSpec, prompt: string, seed: number, taskId: string): Record<string, unknown> {
  const random = seededRandom(seed);
  const items = Array.from({ length: Math.max(1, spec.items) }, (_, i) => i);
  switch (spec.dataType) {
    case 'lyrics':
      return { lyrics: items.map(() => ({ title: makeTitle(random, prompt), text: makeLyrics(random, prompt) })) };
    case 'timestamped-lyrics': {
      const words = makeLyrics(random, prompt).split(/\s+/).filter(Boolean);
      let t = 0;
      return {
        alignedWords: words.map((word) => {
          const startS = t;
          t += 0.25 + random.next() * 0.4;
          return { word, startS: round(startS), endS: round(t) };
        }),
      };
    }
    case 'persona':
      return { personaId: `persona_${taskId.slice(-12)}`, name: makeTitle(random, prompt), description: `A voice persona made from: ${prompt.slice(0, 200)}` };
    case 'style':
      return { style: makeTags(random).join(', ') };
    case 'image-description':
      return { descriptions: items.map(() => `${makeTitle(random, prompt)}: ${makeTags(random).join(', ')}`) };
    case 'bpm':
      return { bpm: 70 + Math.floor(random.next() * 90), key: ['C', 'D', 'E', 'F', 'G', 'A', 'B'][Math.floor(random.next() * 7)] };
    case 'midi':
      return {
        notes: Array.from({ length: 16 }, (_, i) => ({ pitch: 48 + Math.floor(random.next() * 24), startS: i * 0.5, durationS: 0.5, velocity: 80 })),
      };
    case 'upload':
      return { audioId: `audio_${taskId.slice(-12)}`, title: makeTitle(random, prompt) };
  }
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}
