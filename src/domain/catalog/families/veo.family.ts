/** Veo 3.1: V3 (fast and quality) and V4 (lite). */
import { choice, imageUrls, prompt } from '../dsl/fields.ts';
import { defineFamily, enumDimension } from '../dsl/family.ts';
import { videoOutput } from '../dsl/output.ts';
import { count, has, refuse, str } from '../dsl/rules.ts';

const aspectRatio = choice('aspectRatio', ['16:9', '9:16'], { default: '16:9', description: 'Frame shape of the video.' });

const veoResolution = choice('resolution', ['720p', '1080p', '4k'], { default: '1080p', description: 'Output resolution; selects the price tier.' });

export const VEO = defineFamily({
  id: 'V3',
  type: 'VIDEO',
  fields: [
    prompt({ required: true, caps: ['text-to-video'] }),
    aspectRatio,
    imageUrls('urls', {
      maxItems: 3,
      description: 'Images: first (and optional last) frame with generationType frame, or up to 3 references with generationType reference.',
    }),
    veoResolution,
    choice(
      'generationType',
      [
        { value: 'frame', label: 'Frames', caps: ['image-to-video', 'first-last-frame'] },
        { value: 'reference', label: 'References', caps: ['reference-images'] },
      ],
      { description: 'How urls are used; frame when omitted.' },
    ),
  ],
  rules: [
    ({ input }) => {
      if (has(input, 'generationType') && !has(input, 'urls')) throw refuse('generationType', 'requires input.urls');
      const frames = (str(input, 'generationType') ?? 'frame') === 'frame';
      if (frames && count(input, 'urls') > 2) throw refuse('urls', 'must have at most 2 items (first and last frame) when generationType is frame');
    },
  ],
  billing: { unit: 'generation', dimensions: { resolution: enumDimension('resolution') } },
  output: (input) => videoOutput({ resolution: String(input.resolution), aspect: str(input, 'aspectRatio'), durationS: 8, withAudio: true }),
});

export const VEO_LITE = defineFamily({
  id: 'V4',
  type: 'VIDEO',
  fields: [prompt({ required: true, caps: ['text-to-video'] }), aspectRatio, veoResolution],
  billing: { unit: 'generation', dimensions: { resolution: enumDimension('resolution') } },
  output: (input) => videoOutput({ resolution: String(input.resolution), aspect: str(input, 'aspectRatio'), durationS: 8, withAudio: true }),
});
