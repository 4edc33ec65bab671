/** V1 (Sora relay), V2 (Sora official), V3 (Veo 3.1 fast/quality), V4 (Veo 3.1 lite), V5 (Grok video). */
import { choice, imageUrls, prompt } from '../dsl/fields.ts';
import { defineFamily, enumDimension } from '../dsl/family.ts';
import { videoOutput } from '../dsl/output.ts';
import { count, has, refuse, str } from '../dsl/rules.ts';

const aspectRatio = choice('aspectRatio', ['16:9', '9:16'], { default: '16:9', description: 'Frame shape of the video.' });

export const V1 = defineFamily({
  id: 'V1',
  type: 'VIDEO',
  fields: [
    prompt({ required: true, caps: ['text-to-video'] }),
    aspectRatio,
    imageUrls('urls', { caps: ['image-to-video'], description: 'Images to animate (image-to-video).' }),
    choice('duration', [10, 15, 25], { default: 10, description: 'Length of the video in seconds.' }),
  ],
  billing: { unit: 'generation', dimensions: { duration: enumDimension('duration', (v) => `${v}s`) } },
  output: (input) => videoOutput({ resolution: '720p', aspect: str(input, 'aspectRatio'), durationS: Number(input.duration), withAudio: true }),
});

export const V2 = defineFamily({
  id: 'V2',
  type: 'VIDEO',
  fields: [
    prompt({ required: true, caps: ['text-to-video'] }),
    aspectRatio,
    imageUrls('urls', { maxItems: 1, caps: ['image-to-video'], description: 'One image used as the first frame (image-to-video).' }),
    choice('duration', [4, 8, 12, 16, 20], { default: 4, description: 'Length of the video in seconds; billed per second.' }),
  ],
  billing: { unit: 'second', units: (input) => Number(input.duration) },
  output: (input) => videoOutput({ resolution: '720p', aspect: str(input, 'aspectRatio'), durationS: Number(input.duration), withAudio: true }),
});

const veoResolution = choice('resolution', ['720p', '1080p', '4k'], { default: '1080p', description: 'Output resolution; selects the price tier.' });

export const V3 = defineFamily({
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

export const V4 = defineFamily({
  id: 'V4',
  type: 'VIDEO',
  fields: [prompt({ required: true, caps: ['text-to-video'] }), aspectRatio, veoResolution],
  billing: { unit: 'generation', dimensions: { resolution: enumDimension('resolution') } },
  output: (input) => videoOutput({ resolution: String(input.resolution), aspect: str(input, 'aspectRatio'), durationS: 8, withAudio: true }),
});

export const V5 = defineFamily({
  id: 'V5',
  type: 'VIDEO',
  fields: [
    prompt({ required: true, caps: ['text-to-video'] }),
    choice('size', ['16:9', '9:16', '1:1', '3:2', '2:3'], { default: '16:9', description: 'Aspect ratio of the video.' }),
    choice('duration', [6, 10, 15, 20, 25, 30], { default: 6, description: 'Length of the video in seconds; billed per second.' }),
    choice('resolution', ['480p', '720p'], { default: '480p', description: 'Output resolution; selects the per-second rate.' }),
    imageUrls('urls', { caps: ['image-to-video'], description: 'Image to animate (image-to-video).' }),
  ],
  billing: { unit: 'second', dimensions: { resolution: enumDimension('resolution') }, units: (input) => Number(input.duration) },
  output: (input) => videoOutput({ resolution: String(input.resolution), aspect: str(input, 'size'), durationS: Number(input.duration), withAudio: true }),
});
