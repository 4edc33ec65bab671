
import type { ValidatedInput } from '../catalog.types.ts';
import { bool, choice, imageUrls, int, mediaUrl, prompt, seed, taskId, text } from '../dsl/fields.ts';
import { defineFamily, enumDimension, flagDimension, } from '../dsl/family.ts';
import { videoOutput } from '../dsl/output.ts';
import { has, refuse, str, together } from '../dsl/rules.ts';

/** The PixVerse mode a request selects. */
export type PixverseMode = 'text-to-video' | 'image-to-video' | 'transition' | 'fusion' | 'extend';

export function pixverseMode(input: ValidatedInput): PixverseMode {
  if (has(input, 'extendFromTaskId')) return 'extend';
  if (has(input, 'firstFrameImage') || has(input, 'lastFrameImage')) return 'transition';
  if (has(input, 'imgReferences')) return 'fusion';
  if (has(input, 'imageUrls')) return 'image-to-video';
  return 'text-to-video';
}

const MODE_FIELDS = ['imageUrls', 'firstFrameImage', 'imgReferences', 'extendFromTaskId'] as const;

export const PIXVERSE = defineFamily({
  id: 'V10',
  type: 'VIDEO',
  fields: [
    prompt({ required: true, maxLength: 5000, caps: ['text-to-video'] }),
    choice('resolution', ['360p', '540p', '720p', '1080p'], { default: '360p', description: 'Output resolution; selects the per-second rate.' }),
    int('duration', { minimum: 1, maximum: 15, default: 5, description: 'Length in seconds (transition mode: 5 or 8); billed per second.' }),
    choice('size', ['16:9', '4:3', '1:1', '3:4', '9:16', '2:3', '3:2', '21:9'], {
      default: '16:9',
      description: 'Aspect ratio; used only in text-to-video and multi-reference fusion.',
    }),
    seed({ default: 0, maximum: 2_147_483_647 }),
    text('negativePrompt', { maxLength: 2048, multiline: true, caps: ['negative-prompt'], description: 'What to keep out of the video.' }),
    bool('audio', { default: false, caps: ['audio-generation'], description: 'Generate sound with the video (raises the price).' }),
    bool('watermark', { default: false, description: 'Add the vendor watermark.' }),
    choice('motionMode', ['normal', 'fast'], { description: 'Motion mode.' }),
    bool('generateMultiClipSwitch', { default: false, caps: ['multi-shot'], description: 'Cut between several shots (text-to-video and image-to-video only).' }),
    imageUrls('imageUrls', { caps: ['image-to-video'], description: 'Image to animate; only the first is used.' }),
    mediaUrl('firstFrameImage', 'image', { caps: ['first-last-frame'], description: 'First frame (transition mode); requires lastFrameImage.' }),
    mediaUrl('lastFrameImage', 'image', { description: 'Last frame (transition mode); requires firstFrameImage.' }),
    imageUrls('imgReferences', { minItems: 1, maxItems: 7, caps: ['reference-images'], description: '1 to 7 reference images (multi-reference fusion).' }),
    taskId('extendFromTaskId', { caps: ['video-extension'], description: 'Task id of an earlier video of this family to extend.' }),
  ],
  variants: {
    'normal-motion': { fields: { motionMode: { options: ['normal'] } } },
  },
  rules: [
    together('firstFrameImage', 'lastFrameImage'),
    ({ input }) => {
      const present = MODE_FIELDS.filter((f) => has(input, f));
      if (present.length > 1) {
        throw refuse(present[1] ?? '', `cannot be combined with input.${present[0]} (image-to-video, transition, fusion and extension are separate modes)`);
      }
    },
    ({ input }) => {
      const mode = pixverseMode(input);
      if (mode === 'transition' && input.duration !== 5 && input.duration !== 8) {
        throw refuse('duration', `must be 5 or 8 in transition mode (firstFrameImage and lastFrameImage) (got ${String(input.duration)})`);
      }
      if (input.generateMultiClipSwitch === true && mode !== 'text-to-video' && mode !== 'image-to-video') {
        throw refuse('generateMultiClipSwitch', `is only available for text-to-video and image-to-video (this request is ${mode})`);
      }
    },
  ],
  billing: {
    unit: 'second',
    dimensions: { resolution: enumDimension('resolution'), audio: flagDimension(['silent', 'audio'], (input) => input.audio === true) },
    units: (input) => Number(input.duration),
  },
  output: (input) =>
    videoOutput({ resolution: String(input.resolution), aspect: str(input, 'size'), durationS: Number(input.duration), withAudio: input.audio === true }),
});
