/**
 * The closed capability vocabulary. Family declarations attach capabilities to fields (and to enum
 * options, e.g. an `action` value); a model's `capabilities` are the union over the fields it has,
 * in this order. Nothing is listed per model.
 */
export const CAPABILITIES = [
  // what the model makes from what
  'text-to-video',
  'image-to-video',
  'text-to-image',
  'editing',
  'music-generation',
  'motion-transfer',
  // video inputs and options
  'first-last-frame',
  'reference-images',
  'video-reference',
  'audio-reference',
  'document-reference',
  'audio-generation',
  'video-editing',
  'video-extension',
  'multi-shot',
  'return-last-frame',
  'web-search',
  // image operations
  'custom-size',
  'blend',
  'describe',
  'upscale',
  'variation',
  'outpainting',
  'inpainting',
  'style-reference',
  // music operations
  'instrumental',
  'vocals',
  'lyrics',
  'timestamped-lyrics',
  'audio-extension',
  'cover',
  'stem-separation',
  'sound-effects',
  'voice-persona',
  'music-video',
  'audio-editing',
  'remaster',
  'mashup',
  'midi',
  'bpm-detection',
  'audio-upload',
  // common
  'follow-up',
  'batch',
  'seed',
  'negative-prompt',
  'safety-checker',
] as const;

export type Capability = (typeof CAPABILITIES)[number];

const ORDER = new Map<string, number>(CAPABILITIES.map((c, i) => [c, i]));

export function sortCapabilities(caps: Iterable<Capability>): Capability[] {
  return [...new Set(caps)].sort((a, b) => (ORDER.get(a) ?? 0) - (ORDER.get(b) ?? 0));
}
