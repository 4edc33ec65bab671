/** Sora 2: V1 (the relay) and V2 (OpenAI's official API). */
import { choice, imageUrls, prompt } from '../dsl/fields.ts';
import { defineFamily, enumDimension } from '../dsl/family.ts';
import { videoOutput } from '../dsl/output.ts';
import { str } from '../dsl/rules.ts';

const aspectRatio = choice('aspectRatio', ['16:9', '9:16'], { default: '16:9', description: 'Frame shape of the video.' });

export const SORA_RELAY = defineFamily({
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

export const SORA = defineFamily({
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
