/** Grok Imagine video: V5. */
import { choice, imageUrls, prompt } from '../dsl/fields.ts';
import { defineFamily, enumDimension } from '../dsl/family.ts';
import { videoOutput } from '../dsl/output.ts';
import { str } from '../dsl/rules.ts';

export const GROK_VIDEO = defineFamily({
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
